package io.unitas.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * A reader that copies an L2 hit into L1 while an invalidation drops the key must not bring the dropped value back:
 * readers keep evicting the key from a one-entry memory level (so their hits are L2 hits, promoted), while the test
 * puts and invalidates it and checks after each invalidation that it misses.
 */
class TwoLevelCacheRaceTest {

    @TempDir
    Path dir;

    @Test
    void aPromotionRacingAnInvalidation_neverBringsTheDroppedValueBack() throws Exception {
        try (TwoLevelCache<String> cache = TwoLevelCache.builder("race", ValueCodec.utf8()).directory(dir)
                .maximumSize(1).meterRegistry(new SimpleMeterRegistry()).build()) {
            cache.put("other", "x", 1);
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong reads = new AtomicLong();
            Thread[] readers = new Thread[2];
            for (int r = 0; r < readers.length; r++) {
                readers[r] = new Thread(() -> {
                    while (!done.get()) {
                        cache.getIfPresent("k");
                        cache.getIfPresent("other");
                        reads.incrementAndGet();
                    }
                });
                readers[r].start();
            }
            int resurrected = 0;
            try {
                for (int i = 1; i <= 20_000; i++) {
                    cache.put("k", "v" + i, 2L * i);
                    assertThat(cache.invalidate(new Invalidation("k", 2L * i + 1, Instant.EPOCH)))
                            .isEqualTo(InvalidationOutcome.APPLIED);
                    if (cache.getIfPresent("k") != null) {
                        resurrected++;
                    }
                }
            } finally {
                done.set(true);
                for (Thread t : readers) {
                    t.join();
                }
            }
            assertThat(reads.get()).as("the readers ran").isPositive();
            assertThat(resurrected).as("reads after an invalidation that found the dropped value").isZero();
        }
    }
}
