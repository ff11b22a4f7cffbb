package io.unitas.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class TokenBucketTest {

    private long now = 1_000_000_000_000L;

    @Test
    void aFullBucketLetsTheBurstThroughThenRefusesWithTheWait() {
        TokenBucket bucket = TokenBucket.of(10, 3, () -> now);
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isEqualTo(100_000_000L);
    }

    @Test
    void tokensComeBackAtTheRateAndNeverBeyondTheBurst() {
        TokenBucket bucket = TokenBucket.of(10, 2, () -> now);
        bucket.tryTake();
        bucket.tryTake();
        now += 100_000_000L;
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isPositive();
        now += 60_000_000_000L;
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isPositive();
    }

    @Test
    void aRefusedTakeTakesNothing() {
        TokenBucket bucket = TokenBucket.of(1, 1, () -> now);
        bucket.tryTake();
        for (int i = 0; i < 5; i++) {
            assertThat(bucket.tryTake()).isPositive();
        }
        now += 1_000_000_000L;
        assertThat(bucket.tryTake()).isZero();
    }

    @Test
    void aThrottleFenceBuildsItsBucket() {
        TokenBucket bucket = TokenBucket.of(FencePolicy.throttle(1, 2, Duration.ofSeconds(1)), () -> now);
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isZero();
        assertThat(bucket.tryTake()).isPositive();
    }

    @Test
    void rejectsANonPositiveRateOrBurst() {
        assertThatThrownBy(() -> TokenBucket.of(0, 1, () -> now)).hasMessage("rate: 0.0 (expected: > 0)");
        assertThatThrownBy(() -> TokenBucket.of(1, 0, () -> now)).hasMessage("burst: 0 (expected: >= 1)");
    }
}
