package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.testkit.Await;

/** The control plane's periodic work outlives a run that throws, even an {@code Error}. */
class ControlLoopsTest {

    @TempDir
    Path dir;

    @Test
    void theLeaderTick_goesOnAfterARunThrewAnError() {
        ThrowingClock clock = new ThrowingClock();
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir.resolve("data"))
                .tokens(Fixtures.tokensFile(dir)).clock(clock).tick(Duration.ofMillis(10)).start()) {
            Await.until("the tick to read the clock", Duration.ofSeconds(30), () -> clock.threw.get() > 0);
            int after = clock.tickReads.get();

            Await.until("ticks after the error", Duration.ofSeconds(30), () -> clock.tickReads.get() > after + 10);

            assertThat(clock.threw.get()).isEqualTo(1);
        }
    }

    @Test
    void aPeriodicTask_survivesAnyThrowable_andRunsAgain() {
        AtomicInteger runs = new AtomicInteger();
        Runnable task = DefaultControlServer.surviving("test", () -> {
            if (runs.incrementAndGet() == 1) {
                throw new StackOverflowError("injected");
            }
        });

        task.run();
        task.run();

        assertThat(runs.get()).isEqualTo(2);
    }

    /** A clock whose first read on the tick thread throws an {@code Error}; it counts the tick thread's reads. */
    private static final class ThrowingClock extends Clock {
        final AtomicInteger tickReads = new AtomicInteger();
        final AtomicInteger threw = new AtomicInteger();

        @Override
        public Instant instant() {
            if (Thread.currentThread().getName().equals("unitas-control-tick")) {
                tickReads.incrementAndGet();
                if (threw.compareAndSet(0, 1)) {
                    throw new AssertionError("injected into the control tick");
                }
            }
            return Instant.now();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
