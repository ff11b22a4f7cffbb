package io.unitas.core.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketTest {

    private final AtomicLong nanos = new AtomicLong(1_000);

    @Test
    void fullBucket_admitsItsCapacityThenRefusesUntilTimeMoves() {
        TokenBucket bucket = TokenBucket.of(3, 2.0, nanos::get);
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isFalse();
        assertThat(bucket.nanosUntilAvailable()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));

        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(499));
        assertThat(bucket.tryAcquire()).isFalse();
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isFalse();
    }

    @Test
    void refill_neverExceedsCapacity() {
        TokenBucket bucket = TokenBucket.of(2, 100.0, nanos::get);
        nanos.addAndGet(TimeUnit.HOURS.toNanos(1));
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isTrue();
        assertThat(bucket.tryAcquire()).isFalse();
    }

    @Test
    void invalidSettings_sayWhatWasExpected() {
        assertThatThrownBy(() -> TokenBucket.of(0, 1, nanos::get)).hasMessage("capacity: 0 (expected: >= 1)");
        assertThatThrownBy(() -> TokenBucket.of(1, 0, nanos::get))
                .hasMessage("tokens_per_second: 0.0 (expected: a finite number > 0)");
    }
}
