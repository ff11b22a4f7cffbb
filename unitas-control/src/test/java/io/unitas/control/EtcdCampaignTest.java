package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.unitas.testkit.Await;
import io.unitas.testkit.EtcdServer;

/** The etcd store's leader campaign outlives a round that throws, even an {@code Error}, on a real etcd. */
class EtcdCampaignTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void theCampaign_goesOnAfterARoundThrewAnError_andLeadsAgain() {
        AtomicInteger rounds = new AtomicInteger();
        AtomicInteger failing = new AtomicInteger(Integer.MAX_VALUE);
        Runnable beforeRound = () -> {
            if (rounds.incrementAndGet() == failing.get()) {
                throw new AssertionError("injected into the leader campaign");
            }
        };
        try (EtcdStore store = new EtcdStore(List.of(EtcdServer.shared().endpoint()), "/campaign-error/",
                                             Duration.ofSeconds(1), EtcdStore.Access.PLAINTEXT, beforeRound)) {
            Await.until("the replica leads", WAIT, store::leader);
            failing.set(rounds.get() + 1);
            Await.until("the failing round", WAIT, () -> rounds.get() >= failing.get());

            Await.until("rounds after the error", WAIT, () -> rounds.get() > failing.get() + 3);
            Await.until("the replica leads again", WAIT, store::leader);

            assertThat(rounds.get()).isGreaterThan(failing.get());
        }
    }
}
