package io.unitas.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.cache.TwoLevelCache;
import io.unitas.cache.ValueCodec;

/**
 * The two-level cache's hits beside the libraries under it, on the same workload: 10,000 keys of 100-byte values,
 * read in a fixed cycle from a {@code String} key. {@code l1Hit} against {@code rawCaffeine} (a Caffeine cache with
 * the same size bound and a TTL; target: at least 0.8 of its throughput); {@code l2Hit} (the cache with no memory
 * level, so every read goes to disk: key encoding, RocksDB get, header check, value copy) against {@code rawRocksDbGet}
 * (the same key encoding and a RocksDB get on a database with the same options and contents; target: within 2x).
 * Meters are counted into a {@code SimpleMeterRegistry}, as in production.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar TwoLevelCacheBenchmark -f 1 -wi 2 -w 2 -i 3 -r 2}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class TwoLevelCacheBenchmark {

    private static final int KEYS = 10_000;

    private final String[] keys = new String[KEYS];
    private Path dir;
    private TwoLevelCache<byte[]> inMemory;
    private TwoLevelCache<byte[]> onDisk;
    private Cache<String, byte[]> caffeine;
    private Options options;
    private RocksDB rocks;

    /** Each thread reads the keys in the same cycle. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException, RocksDBException {
        RocksDB.loadLibrary();
        dir = Files.createTempDirectory("unitas-cache-bench");
        inMemory = TwoLevelCache.builder("l1", ValueCodec.bytes()).directory(dir.resolve("l1"))
                .maximumSize(2 * KEYS).ttl(Duration.ofHours(1)).meterRegistry(new SimpleMeterRegistry()).build();
        onDisk = TwoLevelCache.builder("l2", ValueCodec.bytes()).directory(dir.resolve("l2"))
                .maximumSize(0).ttl(Duration.ofHours(1)).meterRegistry(new SimpleMeterRegistry()).build();
        caffeine = Caffeine.newBuilder().maximumSize(2 * KEYS).expireAfterWrite(Duration.ofHours(1)).build();
        options = new Options().setCreateIfMissing(true);
        rocks = RocksDB.open(options, dir.resolve("raw").toString());
        for (int i = 0; i < KEYS; i++) {
            keys[i] = "user-" + i;
            byte[] value = new byte[100];
            value[0] = (byte) i;
            inMemory.put(keys[i], value, 1);
            onDisk.put(keys[i], value, 1);
            caffeine.put(keys[i], value);
            rocks.put(keys[i].getBytes(StandardCharsets.UTF_8), value);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        inMemory.close();
        onDisk.close();
        rocks.close();
        options.close();
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

    private String key(Cursor cursor) {
        int i = cursor.next;
        cursor.next = i + 1 == KEYS ? 0 : i + 1;
        return keys[i];
    }

    @Benchmark
    public byte[] l1Hit(Cursor cursor) {
        return inMemory.getIfPresent(key(cursor));
    }

    @Benchmark
    public byte[] rawCaffeine(Cursor cursor) {
        return caffeine.getIfPresent(key(cursor));
    }

    @Benchmark
    public byte[] l2Hit(Cursor cursor) {
        return onDisk.getIfPresent(key(cursor));
    }

    @Benchmark
    public byte[] rawRocksDbGet(Cursor cursor) throws RocksDBException {
        return rocks.get(key(cursor).getBytes(StandardCharsets.UTF_8));
    }
}
