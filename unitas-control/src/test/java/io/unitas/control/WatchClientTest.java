package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.WatchStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's watch against a real control plane: it survives its callback's failures, notices a half-open
 * connection by the missing heartbeats and reconnects, and says how it is doing. Time is a scheduler the test moves:
 * no deadline or backoff here waits on the wall clock.
 */
class WatchClientTest {

    @TempDir
    Path dir;

    private ControlServer server;
    private RawClient operator;
    private final ManualScheduler time = new ManualScheduler();

    @BeforeEach
    void start() {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir)).start();
        Fixtures.seed(RawClient.of(server.uri(), Fixtures.ADMIN.secret()), Instant.now(), 0);
        operator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private ControlClient viewer(java.net.URI uri) {
        return ControlClient.builder(uri).token(Fixtures.VIEWER.secret()).scheduler(time)
                            .random(new Random(7)).reconnectBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
                            .build();
    }

    private long fence() {
        return operator.fence(FenceRequest.of(List.of("u-ny"), "test")).revision();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"exception", "error"})
    void aCallbackThatThrows_isCountedAndTheWatchGoesOn(String what) throws Exception {
        BlockingQueue<Long> delivered = new LinkedBlockingQueue<>();
        AtomicInteger calls = new AtomicInteger();
        try (ControlClient.Watch watch = viewer(server.uri()).watch(-1, e -> {
            delivered.add(e.revision());
            if (calls.incrementAndGet() == 1) {
                if (what.equals("error")) {
                    throw new StackOverflowError("the callback's own deep recursion");
                }
                throw new IllegalStateException("the callback's own bug");
            }
        })) {
            assertThat(delivered.poll(10, TimeUnit.SECONDS)).isEqualTo(server.revision());
            long next = fence();

            assertThat(delivered.poll(10, TimeUnit.SECONDS)).isEqualTo(next);
            WatchStatus status = watch.status();
            assertThat(status.callbackFailures()).isEqualTo(1);
            assertThat(status.lastRevision()).isEqualTo(next);
            assertThat(status.connected()).isTrue();
        }
    }

    @Test
    void aHalfOpenConnection_isDeadAfterThreeMissedHeartbeats_andTheWatchResumesWhereItWas() throws Exception {
        BlockingQueue<Long> delivered = new LinkedBlockingQueue<>();
        try (FreezingProxy proxy = new FreezingProxy(server.uri());
             ControlClient.Watch watch = viewer(proxy.uri()).watch(-1, e -> delivered.add(e.revision()))) {
            assertThat(delivered.poll(10, TimeUnit.SECONDS)).isEqualTo(server.revision());
            proxy.freeze();
            long missed = fence();

            time.forward(Duration.ofSeconds(14));
            assertThat(watch.status().connected()).as("two missed heartbeats are not yet three").isTrue();
            assertThat(watch.status().reconnects()).isZero();
            assertThat(delivered).as("the frozen connection delivers nothing").isEmpty();

            time.forward(Duration.ofMillis(1_001)); // past 15 s: the deadline closes the stream
            assertThat(watch.status().connected()).isFalse();

            Long got = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // a bound on the test, not a decision
            while (got == null && System.nanoTime() < deadline) {
                time.runNextWithin(Duration.ofSeconds(2)); // the backoff's wait, once the reader has begun it
                got = delivered.poll(50, TimeUnit.MILLISECONDS);
            }
            assertThat(got).as("the change made while the connection was half-open").isEqualTo(missed);
            assertThat(watch.status().reconnects()).isEqualTo(1);
            assertThat(watch.status().lastError()).contains("no heartbeat");

        }
    }
}
