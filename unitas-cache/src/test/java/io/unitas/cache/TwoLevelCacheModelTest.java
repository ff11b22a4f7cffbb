package io.unitas.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.testkit.MutableClock;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random histories of puts, invalidations, evictions, reads, restarts and time moving forward, on real RocksDB files
 * and a memory level smaller than the keys (so entries are evicted and promoted again), against a model of one
 * level: every read answers what the model says. L1 and L2 may not tell different stories.
 */
class TwoLevelCacheModelTest {

    private static final long TTL = 100;
    private static final long BOUND = 60;
    private static final String[] KEYS = {"a", "b", "c"};

    /** The model's entry: a value (null for a tombstone), its version and its write time. */
    private record Entry(String value, long version, long writtenAt) {
    }

    @Property(tries = 200)
    void everyReadAnswersWhatTheModelSays(
            @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 1_000_000) Integer> history) throws IOException {
        Path dir = Files.createTempDirectory("unitas-cache-model");
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        Map<String, Entry> model = new HashMap<>();
        TwoLevelCache<String> cache = open(dir, clock);
        try {
            int step = 0;
            for (int n : history) {
                step++;
                String key = KEYS[(n / 7) % KEYS.length];
                long version = (n / 21) % 5;
                long now = clock.millis();
                Entry held = model.get(key);
                boolean live = held != null && now - held.writtenAt < TTL;
                switch (n % 7) {
                    case 0, 1 -> {
                        String value = key + "@" + step;
                        boolean taken = !(live && held.version > version);
                        assertThat(cache.put(key, value, version)).as("step %d: put %s v%d", step, key, version)
                                .isEqualTo(taken);
                        if (taken) {
                            model.put(key, new Entry(value, version, now));
                        }
                    }
                    case 2 -> {
                        boolean stale = live && held.version >= version;
                        assertThat(cache.invalidate(new Invalidation(key, version, Instant.EPOCH)))
                                .as("step %d: invalidate %s v%d", step, key, version)
                                .isEqualTo(stale ? InvalidationOutcome.STALE : InvalidationOutcome.APPLIED);
                        if (!stale) {
                            model.put(key, new Entry(null, version, now));
                        }
                    }
                    case 3 -> {
                        if (version == 0) {
                            cache.evict(key);
                            model.remove(key);
                        } else {
                            cache.close();
                            cache = open(dir, clock);
                        }
                    }
                    case 4 -> clock.advance(Duration.ofMillis((n / 7) % 50));
                    default -> {
                        String expected = live && held.value != null && now - held.writtenAt < BOUND
                                ? held.value : null;
                        assertThat(cache.getIfPresent(key)).as("step %d: get %s", step, key).isEqualTo(expected);
                    }
                }
            }
        } finally {
            cache.close();
            delete(dir);
        }
    }

    private static TwoLevelCache<String> open(Path dir, MutableClock clock) {
        return TwoLevelCache.builder("model", ValueCodec.utf8()).directory(dir).maximumSize(1)
                .ttl(Duration.ofMillis(TTL)).freshnessBound(Duration.ofMillis(BOUND)).clock(clock)
                .meterRegistry(new SimpleMeterRegistry()).build();
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
