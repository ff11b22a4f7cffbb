package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.netty.channel.DefaultEventLoop;
import io.unitas.testkit.Await;

/** A background loop outlives a round that throws, an {@link Error} included, and the failure is counted. */
class LoopGuardTest {

    @Test
    void aRoundThatThrowsAnError_isCounted_andTheLoopRunsOn() {
        LoopGuard guard = new LoopGuard();
        AtomicInteger rounds = new AtomicInteger();
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            loop.scheduleAtFixedRate(guard.guard("test loop", () -> {
                int round = rounds.incrementAndGet();
                if (round == 1) {
                    throw new OutOfMemoryError("Java heap space");
                }
                if (round == 2) {
                    throw new IllegalStateException("a bug");
                }
            }), 0, 10, TimeUnit.MILLISECONDS);
            Await.until("rounds after the failing ones", Duration.ofSeconds(10), () -> rounds.get() >= 4);
            assertThat(guard.failures()).isEqualTo(2);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }
}
