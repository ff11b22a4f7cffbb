package io.unitas.core.fence;

import java.time.Duration;
import java.util.Objects;

/**
 * How one fenced unit treats writes: refuse them all ({@link Mode#REJECT}) or let a metered trickle through
 * ({@link Mode#THROTTLE}, seed 003's "throttle writes while replication catches up"). Reads always pass. Who fenced
 * the unit and why is its {@link FenceRecord}.
 *
 * @param mode            refuse or throttle
 * @param writesPerSecond the sustained write rate a throttle lets through; 0 for a reject fence
 * @param burst           how many writes a throttle lets through at once; 0 for a reject fence
 * @param retryAfter      what a refused write is told to wait before trying again
 */
public record FencePolicy(Mode mode, double writesPerSecond, int burst, Duration retryAfter) {

    /** What a refused write is told to wait when its fence does not say (an operator's fence, a fence file's). */
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(5);
    /** The least a refused write is told to wait: {@code Retry-After} counts whole seconds. */
    public static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

    /** What a fence does to writes. */
    public enum Mode {
        /** Every write is refused. */
        REJECT,
        /** Writes pass at a metered rate; the rest are refused. */
        THROTTLE
    }

    /** Validates: a throttle needs a positive rate and burst, every fence a retry-after of at least one second. */
    public FencePolicy {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (mode == Mode.THROTTLE && !(writesPerSecond > 0 && Double.isFinite(writesPerSecond))) {
            throw new IllegalArgumentException("writes_per_second: " + writesPerSecond + " (expected: > 0)");
        }
        if (mode == Mode.THROTTLE && burst < 1) {
            throw new IllegalArgumentException("burst: " + burst + " (expected: >= 1)");
        }
        if (retryAfter.compareTo(MIN_RETRY_AFTER) < 0) {
            throw new IllegalArgumentException("retry_after: " + retryAfter + " (expected: >= 1s)");
        }
    }

    /** A fence that refuses every write, telling clients to retry after {@code retryAfter}. */
    public static FencePolicy reject(Duration retryAfter) {
        return new FencePolicy(Mode.REJECT, 0, 0, retryAfter);
    }

    /** A fence that lets {@code writesPerSecond} writes through, {@code burst} at once, and refuses the rest. */
    public static FencePolicy throttle(double writesPerSecond, int burst, Duration retryAfter) {
        return new FencePolicy(Mode.THROTTLE, writesPerSecond, burst, retryAfter);
    }
}
