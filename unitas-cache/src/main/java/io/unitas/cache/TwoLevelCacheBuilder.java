package io.unitas.cache;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

/**
 * Options of a {@link TwoLevelCache}; {@link #build} checks them and opens the cache's directory. Every option has a
 * default but the {@link #directory}.
 */
public final class TwoLevelCacheBuilder<V> {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    private final String name;
    private final ValueCodec<V> codec;
    private Path directory;
    private long maximumSize = 10_000;
    private Duration ttl = Duration.ofMinutes(10);
    private Duration freshnessBound;
    private Clock clock = Clock.systemUTC();
    private MeterRegistry registry = Metrics.globalRegistry;

    TwoLevelCacheBuilder(String name, ValueCodec<V> codec) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "cache name: '" + name + "' (expected: lower-case letters, digits, '.', '_' or '-', 1 to 64)");
        }
        this.name = name;
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    /** The directory of L2's RocksDB files (created if missing); one open cache per directory. Required. */
    public TwoLevelCacheBuilder<V> directory(Path directory) {
        this.directory = Objects.requireNonNull(directory, "directory");
        return this;
    }

    /** The most entries L1 holds in memory (default 10,000); 0 keeps nothing in memory (every hit is an L2 hit). */
    public TwoLevelCacheBuilder<V> maximumSize(long maximumSize) {
        if (maximumSize < 0) {
            throw new IllegalArgumentException("cache '" + name + "': maximumSize: " + maximumSize + " (expected: >= 0)");
        }
        this.maximumSize = maximumSize;
        return this;
    }

    /** How long after it was written an entry is deleted rather than served, in both levels (default 10 min). */
    public TwoLevelCacheBuilder<V> ttl(Duration ttl) {
        this.ttl = positive("ttl", ttl);
        return this;
    }

    /**
     * The age past which an entry is not served (but kept until the TTL): the freshness bound of the data behind
     * the cache, e.g. the data layer's readiness bound for the entity. Default: the TTL.
     */
    public TwoLevelCacheBuilder<V> freshnessBound(Duration freshnessBound) {
        this.freshnessBound = positive("freshnessBound", freshnessBound);
        return this;
    }

    /** The clock entries' write times come from and ages are measured on (default UTC system clock). */
    public TwoLevelCacheBuilder<V> clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** Where the cache's meters go (default Micrometer's global registry). */
    public TwoLevelCacheBuilder<V> meterRegistry(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /** Opens the cache; throws {@link CacheStoreException} when the directory cannot be opened. */
    public TwoLevelCache<V> build() {
        if (directory == null) {
            throw new IllegalStateException("cache '" + name + "': directory: not set (expected: the directory of "
                    + "the cache's files on local disk, one per cache)");
        }
        Duration bound = freshnessBound == null || freshnessBound.compareTo(ttl) > 0 ? ttl : freshnessBound;
        return new DefaultTwoLevelCache<>(name, codec, directory, maximumSize, ttl.toMillis(), bound.toMillis(),
                clock, registry);
    }

    private Duration positive(String option, Duration value) {
        Objects.requireNonNull(value, option);
        if (value.isNegative() || value.isZero() || value.toMillis() == 0) {
            throw new IllegalArgumentException(
                    "cache '" + name + "': " + option + ": " + value + " (expected: at least 1 ms)");
        }
        return value;
    }
}
