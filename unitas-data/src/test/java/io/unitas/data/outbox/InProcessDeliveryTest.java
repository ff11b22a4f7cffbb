package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the in-process transport's flush delivers: its links at once (one target's commit does not wait for the
 * other's), and without waiting for a link another thread is delivering. Receivers here are appliers held at a latch,
 * so the order of events is forced, not timed.
 */
class InProcessDeliveryTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final long PATIENCE_SECONDS = 20;

    private final InProcessTransport transport = InProcessTransport.create();

    @AfterEach
    void close() {
        transport.close();
    }

    @Test
    void aFlush_deliversToBothTargetsAtOnce() {
        CountDownLatch bothApplying = new CountDownLatch(2);
        Held eu = new Held(EU, () -> {
            bothApplying.countDown();
            return await(bothApplying); // one at a time, the first would wait here for the second in vain
        });
        Held us = new Held(US, () -> {
            bothApplying.countDown();
            return await(bothApplying);
        });
        transport.receiver(new Held(CN, () -> true));
        transport.receiver(eu);
        transport.receiver(us);

        transport.publish(List.of(change(CN, "u-1", 1)));
        transport.flush();

        assertThat(eu.outcomes).as("eu applied while us was applying").containsExactly(true);
        assertThat(us.outcomes).as("us applied while eu was applying").containsExactly(true);
    }

    @Test
    void aFlush_doesNotWaitForALinkAnotherThreadIsDelivering() throws Exception {
        CountDownLatch cnApplying = new CountDownLatch(1);
        CountDownLatch releaseCn = new CountDownLatch(1);
        transport.receiver(new Held(CN, () -> {
            cnApplying.countDown();
            return await(releaseCn);
        }));
        Held eu = new Held(EU, () -> true);
        Held us = new Held(US, () -> true);
        transport.receiver(eu);
        transport.receiver(us);
        transport.publish(List.of(change(EU, "u-2", 1)));
        CompletableFuture<Void> euShipper = CompletableFuture.runAsync(transport::flush); // holds eu->cn at cn
        assertThat(cnApplying.await(PATIENCE_SECONDS, TimeUnit.SECONDS)).isTrue();

        transport.publish(List.of(change(CN, "u-1", 1)));
        CompletableFuture<Void> cnShipper = CompletableFuture.runAsync(transport::flush);
        cnShipper.get(PATIENCE_SECONDS, TimeUnit.SECONDS); // with eu->cn still held at cn

        assertThat(eu.applied).extracting(ChangeEnvelope::id).contains("cn/u-1#1");
        assertThat(us.applied).extracting(ChangeEnvelope::id).contains("cn/u-1#1");
        assertThat(euShipper).isNotDone();
        releaseCn.countDown();
        euShipper.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
    }

    private static ChangeEnvelope change(Region origin, String unit, long sequence) {
        return new ChangeEnvelope(unit, origin, sequence, sequence - 1, Ledger.ENTRY, "e-" + sequence, new byte[] {1},
                                  Instant.parse("2026-03-03T09:00:00Z"));
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(PATIENCE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A receiver that runs {@code gate} before it takes each batch, and keeps what it took. */
    private static final class Held implements ChangeApplier {

        private final Region region;
        private final java.util.function.BooleanSupplier gate;
        final List<Boolean> outcomes = new CopyOnWriteArrayList<>();
        final List<ChangeEnvelope> applied = new CopyOnWriteArrayList<>();

        Held(Region region, java.util.function.BooleanSupplier gate) {
            this.region = region;
            this.gate = gate;
        }

        @Override
        public Region region() {
            return region;
        }

        @Override
        public ApplyResult apply(ChangeEnvelope change) {
            return applyAll(List.of(change)).get(0);
        }

        @Override
        public List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
            outcomes.add(gate.getAsBoolean());
            applied.addAll(changes);
            List<ApplyResult> results = new ArrayList<>();
            changes.forEach(c -> results.add(new ApplyResult(ApplyResult.Outcome.APPLIED, c, c.sequence(), "")));
            return results;
        }

        @Override
        public Map<String, Long> positions(Region origin) {
            return Map.of();
        }

        @Override
        public List<StoppedStream> stopped() {
            return List.of();
        }
    }
}
