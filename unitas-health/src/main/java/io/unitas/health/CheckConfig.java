package io.unitas.health;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.unitas.core.health.Aggregation;
import io.unitas.core.health.Gate;
import io.unitas.core.health.Thresholds;

/**
 * One check of a region: either a probe run on a schedule, or a calculated check over other checks.
 *
 * @param name        the check's name: in reasons, metrics, {@code /healthz} and as a gRPC health service name
 * @param gate        what the check's failure closes
 * @param inverted    whether the verdict is flipped (up when the probe fails)
 * @param interval    how often the probe starts (start to start)
 * @param timeout     how long one probe may take
 * @param thresholds  consecutive failures to go down, successes to come back
 * @param probe       the probe, or {@code null} for a calculated check
 * @param aggregation how a calculated check combines its children, or {@code null} for a probe
 * @param children    the checks a calculated check reads, by name; empty for a probe
 */
public record CheckConfig(String name, Gate gate, boolean inverted, Duration interval, Duration timeout,
                          Thresholds thresholds, ProbeConfig probe, Aggregation aggregation, List<String> children) {

    /** Requires the common parts; exactly one of {@code probe} and {@code aggregation}. */
    public CheckConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(gate, "gate");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(thresholds, "thresholds");
        children = List.copyOf(children);
        if ((probe == null) == (aggregation == null)) {
            throw new IllegalArgumentException(name + ": expected exactly one of a probe and an aggregation");
        }
    }

    /** Whether this is a calculated check. */
    public boolean calculated() {
        return aggregation != null;
    }

    /** The replication lag at which the check fails, zero when it has no limit. */
    public Duration maxLag() {
        return probe == null ? Duration.ZERO : probe.maxLag();
    }

    /**
     * How long the check may go without a result before it counts as down whatever its thresholds say:
     * {@code 2 × (interval + timeout)}.
     */
    public Duration staleAfter() {
        return interval.plus(timeout).multipliedBy(2);
    }
}
