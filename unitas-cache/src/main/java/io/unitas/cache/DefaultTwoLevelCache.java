package io.unitas.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * L1 a Caffeine cache of decoded entries, L2 a RocksDB database of encoded ones. Writes (put, invalidate, the
 * deletion of an expired entry, the promotion of an L2 hit into L1) hold the key's stripe lock and write L2 before
 * L1, so L1 is always a subset of L2 at the same versions; L1 hits take no lock.
 */
final class DefaultTwoLevelCache<V> implements TwoLevelCache<V> {

    static {
        RocksDB.loadLibrary();
    }

    private static final int STRIPES = 256;
    private static final byte TOMBSTONE = 1;
    /** flags (1 byte), version (8), written-at epoch millis (8), then the value's bytes. */
    private static final int HEADER = 17;

    private final String name;
    private final ValueCodec<V> codec;
    private final Path directory;
    private final long ttlMillis;
    private final long boundMillis;
    private final Clock clock;
    private final Options options;
    private final RocksDB db;
    private final Cache<String, Held<V>> l1;
    private final Object[] stripes = new Object[STRIPES];
    private final Counter l1Hits;
    private final Counter l2Hits;
    private final Counter misses;
    private final Counter applied;
    private final Counter stale;
    private final Counter expired;
    private volatile boolean closed;

    /** An entry in L1: the decoded value, its version and when it was written (epoch millis). */
    private record Held<V>(V value, long version, long writtenAt) {
    }

    DefaultTwoLevelCache(String name, ValueCodec<V> codec, Path directory, long maximumSize, long ttlMillis,
            long boundMillis, Clock clock, MeterRegistry registry) {
        this.name = name;
        this.codec = codec;
        this.directory = directory;
        this.ttlMillis = ttlMillis;
        this.boundMillis = boundMillis;
        this.clock = clock;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
        this.options = new Options().setCreateIfMissing(true);
        try {
            Files.createDirectories(directory);
            this.db = RocksDB.open(options, directory.toString());
        } catch (IOException | RocksDBException e) {
            options.close();
            throw new CacheStoreException("cache '" + name + "': cannot open " + directory + ": " + e.getMessage()
                    + " (expected: a directory this process can write, not open in another cache or process)", e);
        }
        this.l1 = maximumSize == 0 ? null : Caffeine.newBuilder()
                .maximumSize(maximumSize)
                // maintenance (eviction, expiry) on the calling threads: no pool to size, and evictions are
                // done when the call returns
                .executor(Runnable::run)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .expireAfter(new Expiry<String, Held<V>>() {
                    @Override
                    public long expireAfterCreate(String key, Held<V> held, long currentTime) {
                        return remainingNanos(held);
                    }

                    @Override
                    public long expireAfterUpdate(String key, Held<V> held, long currentTime, long currentDuration) {
                        return remainingNanos(held);
                    }

                    @Override
                    public long expireAfterRead(String key, Held<V> held, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                })
                .build();
        this.l1Hits = gets(registry, "l1_hit");
        this.l2Hits = gets(registry, "l2_hit");
        this.misses = gets(registry, "miss");
        this.applied = invalidations(registry, "applied");
        this.stale = invalidations(registry, "stale");
        this.expired = Counter.builder("unitas.cache.expired").tag("cache", name)
                .description("entries and tombstones deleted from disk past the TTL").register(registry);
    }

    private Counter gets(MeterRegistry registry, String result) {
        return Counter.builder("unitas.cache.gets").tag("cache", name).tag("result", result)
                .description("reads by the level that answered, or miss").register(registry);
    }

    private Counter invalidations(MeterRegistry registry, String outcome) {
        return Counter.builder("unitas.cache.invalidations").tag("cache", name).tag("outcome", outcome)
                .description("invalidations applied to this cache, or ignored as stale").register(registry);
    }

    /** How long an L1 entry may still be served: up to the freshness bound past its write time. */
    private long remainingNanos(Held<V> held) {
        long left = held.writtenAt + boundMillis - clock.millis();
        return TimeUnit.MILLISECONDS.toNanos(Math.max(0, Math.min(left, boundMillis)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public V getIfPresent(String key) {
        if (l1 != null) {
            Held<V> held = l1.getIfPresent(key);
            if (held != null) {
                l1Hits.increment();
                return held.value;
            }
        }
        V value = fromL2(key);
        if (value == null) {
            misses.increment();
        }
        return value;
    }

    @Override
    public V get(String key, CacheLoader<V> loader) {
        V value = getIfPresent(key);
        if (value != null) {
            return value;
        }
        Versioned<V> loaded = loader.load(key);
        if (loaded == null) {
            return null;
        }
        put(key, loaded.value(), loaded.version());
        return loaded.value();
    }

    /** An L2 hit, promoted into L1; null when L2 has no entry fresh enough. */
    private V fromL2(String key) {
        checkOpen();
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        if (l1 == null) {
            byte[] stored = read(k);
            if (stored == null) {
                return null;
            }
            long now = clock.millis();
            if (expired(stored, now)) {
                synchronized (stripe(key)) {
                    deleteIfExpired(k, now);
                }
                return null;
            }
            return serve(stored, now);
        }
        synchronized (stripe(key)) {
            byte[] stored = read(k);
            if (stored == null) {
                return null;
            }
            long now = clock.millis();
            if (expired(stored, now)) {
                deleteIfExpired(k, now);
                return null;
            }
            V value = serve(stored, now);
            if (value != null) {
                l1.put(key, new Held<>(value, version(stored), writtenAt(stored)));
            }
            return value;
        }
    }

    /** The value of a stored entry not past the TTL, or null for a tombstone or an entry past the freshness bound. */
    private V serve(byte[] stored, long now) {
        if (stored[0] == TOMBSTONE || now - writtenAt(stored) >= boundMillis) {
            return null;
        }
        byte[] bytes = new byte[stored.length - HEADER];
        System.arraycopy(stored, HEADER, bytes, 0, bytes.length);
        V value = codec.decode(bytes);
        l2Hits.increment();
        return value;
    }

    @Override
    public boolean put(String key, V value, long version) {
        checkOpen();
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] encoded = codec.encode(value);
        synchronized (stripe(key)) {
            long now = clock.millis();
            byte[] current = read(k);
            if (current != null && !expired(current, now) && version(current) > version) {
                return false;
            }
            write(k, stored((byte) 0, version, now, encoded));
            if (l1 != null) {
                l1.put(key, new Held<>(value, version, now));
            }
            return true;
        }
    }

    @Override
    public InvalidationOutcome invalidate(Invalidation invalidation) {
        checkOpen();
        String key = invalidation.key();
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        synchronized (stripe(key)) {
            long now = clock.millis();
            byte[] current = read(k);
            if (current != null && !expired(current, now) && version(current) >= invalidation.version()) {
                stale.increment();
                return InvalidationOutcome.STALE;
            }
            // the tombstone keeps the version, so a value older than this change is refused until the TTL
            write(k, stored(TOMBSTONE, invalidation.version(), now, new byte[0]));
            if (l1 != null) {
                l1.invalidate(key);
            }
            applied.increment();
            return InvalidationOutcome.APPLIED;
        }
    }

    @Override
    public void evict(String key) {
        checkOpen();
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        synchronized (stripe(key)) {
            try {
                db.delete(k);
            } catch (RocksDBException e) {
                throw failure("delete from", e);
            }
            if (l1 != null) {
                l1.invalidate(key);
            }
        }
    }

    @Override
    public void clear() {
        checkOpen();
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                evict(new String(it.key(), StandardCharsets.UTF_8));
            }
        }
    }

    @Override
    public long purgeExpired() {
        checkOpen();
        long purged = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                long now = clock.millis();
                if (expired(it.value(), now)) {
                    byte[] k = it.key();
                    synchronized (stripe(new String(k, StandardCharsets.UTF_8))) {
                        if (deleteIfExpired(k, now)) {
                            purged++;
                        }
                    }
                }
            }
        }
        return purged;
    }

    @Override
    public void sync() {
        checkOpen();
        try {
            db.flushWal(true);
        } catch (RocksDBException e) {
            throw failure("flush the write-ahead log of", e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (l1 != null) {
            l1.invalidateAll();
        }
        db.close();
        options.close();
    }

    @Override
    public String toString() {
        return "TwoLevelCache[" + name + " at " + directory + "]";
    }

    private boolean deleteIfExpired(byte[] k, long now) {
        byte[] current = read(k);
        if (current == null || !expired(current, now)) {
            return false;
        }
        try {
            db.delete(k);
        } catch (RocksDBException e) {
            throw failure("delete from", e);
        }
        expired.increment();
        return true;
    }

    private boolean expired(byte[] stored, long now) {
        return now - writtenAt(stored) >= ttlMillis;
    }

    private byte[] read(byte[] k) {
        try {
            return db.get(k);
        } catch (RocksDBException e) {
            throw failure("read", e);
        }
    }

    private void write(byte[] k, byte[] stored) {
        try {
            db.put(k, stored);
        } catch (RocksDBException e) {
            throw failure("write", e);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("cache '" + name + "': closed");
        }
    }

    private CacheStoreException failure(String what, RocksDBException e) {
        return new CacheStoreException("cache '" + name + "': cannot " + what + " " + directory + ": "
                + e.getMessage(), e);
    }

    private Object stripe(String key) {
        int h = key.hashCode();
        return stripes[(h ^ (h >>> 16)) & (STRIPES - 1)];
    }

    private static byte[] stored(byte flags, long version, long writtenAt, byte[] value) {
        return ByteBuffer.allocate(HEADER + value.length).put(flags).putLong(version).putLong(writtenAt).put(value)
                .array();
    }

    private static long version(byte[] stored) {
        return ByteBuffer.wrap(stored, 1, 8).getLong();
    }

    private static long writtenAt(byte[] stored) {
        return ByteBuffer.wrap(stored, 9, 8).getLong();
    }
}
