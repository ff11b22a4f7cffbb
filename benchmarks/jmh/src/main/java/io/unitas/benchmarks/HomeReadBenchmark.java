package io.unitas.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.remote.EntityReader;
import io.unitas.data.remote.HomeRead;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.data.remote.StoredEntity;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a home read over the network adds (goal: p99 added at most 2 ms on loopback): the same entity read by the
 * home's reader in process ({@code inProcess}) and by a {@code HomeReadClient} through a {@code HomeReadServer} on
 * 127.0.0.1 over h2c ({@code overLoopback}), with the client's default deadline (250 ms) and hedge (100 ms). The
 * added p99 is {@code overLoopback}'s {@code p0.99} minus {@code inProcess}'s. The reader is a map lookup so that the
 * difference is the hop: encoding, HTTP/2, the token check, the blocking hand-off and decoding.
 *
 * <p>Run on a quiet machine: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar HomeReadBenchmark}; allocation per read, which load does not skew:
 * {@code … HomeReadBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class HomeReadBenchmark {

    private static final Region CN = Region.of("cn");
    private static final String TOKEN = "utk_benchmark";

    private final Map<String, StoredEntity> store = Map.of("alice", new StoredEntity(
            7, "{\"id\":\"alice\",\"name\":\"Alice\",\"unit\":\"u-cn\"}".getBytes(StandardCharsets.UTF_8),
            Instant.parse("2026-03-03T09:00:00Z")));
    private final EntityReader reader = (unit, key) -> Optional.ofNullable(store.get(key));
    private HomeReadServer server;
    private HomeReadClient client;

    /** cn serving its store on loopback, and a client in another region with a warm connection. */
    @Setup
    public void start() {
        server = HomeReadServer.builder().region(CN).owns("u-cn"::equals).token(TOKEN).reader("account", reader)
                               .meterRegistry(new SimpleMeterRegistry()).start();
        client = HomeReadClient.builder().endpoint(CN, server.uri()).token(TOKEN)
                               .meterRegistry(new SimpleMeterRegistry()).build();
        // The first reads open the connection and load classes; on a busy machine they may take the whole deadline.
        HomeRead first = null;
        for (int i = 0; i < 20 && (first == null || !first.found()); i++) {
            first = client.read(CN, "u-cn", "account", "alice").toCompletableFuture().join();
        }
        if (!first.found()) {
            stop();
            throw new IllegalStateException("setup: " + first);
        }
    }

    /** Closes both ends. */
    @TearDown
    public void stop() {
        client.close();
        server.close();
    }

    /** The home's reader called in process: the floor. */
    @Benchmark
    public Optional<StoredEntity> inProcess() throws Exception {
        return reader.read("u-cn", "alice");
    }

    /**
     * The same read from another region through the network hop. A read that times out is a sample of the deadline's
     * length, so it shows in the percentiles as it would to a caller.
     */
    @Benchmark
    public HomeRead overLoopback() {
        return client.read(CN, "u-cn", "account", "alice").toCompletableFuture().join();
    }
}
