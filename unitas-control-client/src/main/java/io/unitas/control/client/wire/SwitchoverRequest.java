package io.unitas.control.client.wire;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * {@code POST /api/v1/switchovers}: move {@code units} (or every unit of {@code drain}) to {@code target}, flipping
 * once their measured lag is at most {@code maxLag}, rolling back if not flipped by the deadline.
 *
 * @param units    the units to move; empty when {@code drain} names a region
 * @param drain    move every unit of this region ({@code ""}: the units listed)
 * @param target   the region to move to ({@code ""}: the first healthy region the units fail over to)
 * @param maxLag   flip once the units' lag from their home to the target is at most this; zero: caught up
 * @param deadline roll back if not flipped by this instant; null: {@code timeout} from now
 * @param timeout  roll back if not flipped this long from now; null: the server's default
 * @param dryRun   only plan: move nothing
 * @param force    run even if a region would be over capacity
 * @param reason   why, for the audit log ({@code ""}: none)
 * @param promote  move without waiting on lag (a home that cannot ship), stating each unit's RPO
 */
public record SwitchoverRequest(List<String> units, String drain, String target, Duration maxLag, Instant deadline,
                                Duration timeout, boolean dryRun, boolean force, String reason, boolean promote) {

    public SwitchoverRequest {
        units = List.copyOf(units);
        drain = Objects.requireNonNullElse(drain, "");
        target = Objects.requireNonNullElse(target, "");
        maxLag = Objects.requireNonNullElse(maxLag, Duration.ZERO);
        reason = Objects.requireNonNullElse(reason, "");
        if (maxLag.isNegative()) {
            throw new IllegalArgumentException("max_lag: " + maxLag + " (expected: >= 0)");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
        }
    }

    /** Moves {@code units} to {@code target} once caught up, with the server's default timeout. */
    public static SwitchoverRequest move(List<String> units, String target) {
        return new SwitchoverRequest(units, "", target, Duration.ZERO, null, null, false, false, "", false);
    }

    /** Moves every unit of {@code region} to {@code target} ({@code ""}: where they fail over to). */
    public static SwitchoverRequest drain(String region, String target) {
        return new SwitchoverRequest(List.of(), region, target, Duration.ZERO, null, null, false, false, "", false);
    }

    /** Promotes {@code units} at {@code target} without waiting on their lag. */
    public static SwitchoverRequest promote(List<String> units, String target) {
        return new SwitchoverRequest(units, "", target, Duration.ZERO, null, null, false, false, "", true);
    }

    /** This request flipping once the lag is at most {@code lag}. */
    public SwitchoverRequest withMaxLag(Duration lag) {
        return new SwitchoverRequest(units, drain, target, lag, deadline, timeout, dryRun, force, reason, promote);
    }

    /** This request rolling back if not flipped {@code after} from now. */
    public SwitchoverRequest withTimeout(Duration after) {
        return new SwitchoverRequest(units, drain, target, maxLag, deadline, after, dryRun, force, reason, promote);
    }

    /** This request rolling back if not flipped by {@code at}. */
    public SwitchoverRequest withDeadline(Instant at) {
        return new SwitchoverRequest(units, drain, target, maxLag, at, timeout, dryRun, force, reason, promote);
    }

    /** This request only planned ({@code true}) or run. */
    public SwitchoverRequest withDryRun(boolean only) {
        return new SwitchoverRequest(units, drain, target, maxLag, deadline, timeout, only, force, reason, promote);
    }

    /** This request run even over capacity ({@code true}). */
    public SwitchoverRequest withForce(boolean over) {
        return new SwitchoverRequest(units, drain, target, maxLag, deadline, timeout, dryRun, over, reason, promote);
    }

    /** This request saying why. */
    public SwitchoverRequest withReason(String why) {
        return new SwitchoverRequest(units, drain, target, maxLag, deadline, timeout, dryRun, force, why, promote);
    }
}
