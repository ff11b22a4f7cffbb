package io.unitas.core.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import io.unitas.core.RegionHealth;

/**
 * The anti-flap state of one check, as an immutable value: the owner feeds each probe result with the time it
 * was observed into {@link #next} and keeps the returned state. The first result sets the state directly; after
 * that an up check goes down only after {@code fall} consecutive failures and a down check comes back only after
 * {@code rise} consecutive successes.
 *
 * @param known     whether any result was seen yet
 * @param up        the current verdict (false until a result is seen)
 * @param contrary  consecutive results disagreeing with the verdict so far
 * @param since     when the verdict last changed (or the state was created)
 * @param lastAt    when the last result was observed, or {@code since} when there was none
 * @param last      the last result, or {@code null} when there was none
 * @param failure   the reason of the last failing result, empty if none failed yet
 */
public record CheckState(boolean known, boolean up, int contrary, Instant since, Instant lastAt, ProbeResult last,
                         String failure) {

    /** Validates the invariants between fields. */
    public CheckState {
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(lastAt, "lastAt");
        Objects.requireNonNull(failure, "failure");
        if (contrary < 0) {
            throw new IllegalArgumentException("contrary: " + contrary + " (expected: >= 0)");
        }
        if (known != (last != null)) {
            throw new IllegalArgumentException("last: " + last + " (expected: present exactly when known)");
        }
    }

    /** The state of a check that has not been probed yet, created at {@code now}. */
    public static CheckState initial(Instant now) {
        return new CheckState(false, false, 0, now, now, null, "");
    }

    /** The state after {@code result}, observed at {@code now}, under {@code thresholds}. */
    public CheckState next(ProbeResult result, Thresholds thresholds, Instant now) {
        String lastFailure = result.up() ? failure : result.reason();
        if (!known) {
            return new CheckState(true, result.up(), 0, now, now, result, lastFailure);
        }
        if (result.up() == up) {
            return new CheckState(true, up, 0, since, now, result, lastFailure);
        }
        int streak = contrary + 1;
        if (streak >= (up ? thresholds.fall() : thresholds.rise())) {
            return new CheckState(true, result.up(), 0, now, now, result, lastFailure);
        }
        return new CheckState(true, up, streak, since, now, result, lastFailure);
    }

    /**
     * The published form of this state at {@code now}. A check with no result for longer than {@code staleAfter}
     * is down whatever its thresholds say: a probe that stopped reporting is not evidence of health.
     */
    public CheckReport report(Instant now, Duration staleAfter) {
        return report(now, staleAfter, false);
    }

    /**
     * As {@link #report(Instant, Duration)}, with the verdict flipped when {@code inverted}. Only a fresh verdict
     * is flipped: a check with no result yet, or a stale one, stays down.
     */
    public CheckReport report(Instant now, Duration staleAfter, boolean inverted) {
        if (!known) {
            return CheckReport.down("no result yet");
        }
        long latencyMs = last.latency().toMillis();
        Duration silent = Duration.between(lastAt, now);
        if (silent.compareTo(staleAfter) > 0) {
            return new CheckReport(false, latencyMs, "no result for " + silent.toMillis() + "ms (expected: within "
                    + staleAfter.toMillis() + "ms)", RegionHealth.UNKNOWN_LAG, last.details());
        }
        String reason;
        if (up) {
            reason = "";
        } else if (last.up()) {
            reason = failure + " (recovering: " + contrary + " success(es) so far)";
        } else {
            reason = failure;
        }
        CheckReport report = new CheckReport(up, latencyMs, reason, last.replicationLagMs(), last.details());
        return inverted ? report.inverted() : report;
    }
}
