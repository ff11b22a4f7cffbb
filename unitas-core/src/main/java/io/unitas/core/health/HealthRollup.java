package io.unitas.core.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.unitas.core.RegionHealth;

/**
 * Rolls a region's checks up into its {@link RegionHealth}:
 * <ul>
 *   <li>{@code healthy}: every check with gate {@link Gate#HEALTHY} is up;</li>
 *   <li>{@code writable}: healthy, and every check with gate {@link Gate#WRITABLE} is up;</li>
 *   <li>{@code replication_lag_ms}: the largest lag measured by a gating check, {@code -1} when none measures;</li>
 *   <li>{@code score}: 0 when not healthy; otherwise {@code up / gating × (1 − 0.5 × lagRatio)}, where
 *       {@code up / gating} is the share of gating checks (gate healthy or writable) that are up and
 *       {@code lagRatio} is the largest {@code min(1, lag / max-lag)} over the gating checks that have a
 *       {@code max-lag}; rounded to three decimals;</li>
 *   <li>{@code reasons}: {@code "name: reason"} of every gating check that is down, in order.</li>
 * </ul>
 * Checks with gate {@link Gate#NONE} are reported but change none of these.
 */
public final class HealthRollup {

    private HealthRollup() {}

    /**
     * One check as the roll-up sees it.
     *
     * @param name     the check's name, prefixed to its reason
     * @param gate     what the check's failure closes
     * @param maxLagMs the lag at which the check fails, or 0 when it has none
     * @param report   the check's current state
     */
    public record Entry(String name, Gate gate, long maxLagMs, CheckReport report) {

        /** Requires every part; {@code maxLagMs} must not be negative. */
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(gate, "gate");
            Objects.requireNonNull(report, "report");
            if (maxLagMs < 0) {
                throw new IllegalArgumentException("max-lag: " + maxLagMs + "ms (expected: >= 0)");
            }
        }
    }

    /** The region's health from its checks, in configuration order. */
    public static RegionHealth rollUp(List<Entry> checks) {
        boolean healthy = true;
        boolean writable = true;
        int gating = 0;
        int up = 0;
        long lag = RegionHealth.UNKNOWN_LAG;
        double lagRatio = 0;
        List<String> reasons = new ArrayList<>();
        for (Entry check : checks) {
            if (check.gate() == Gate.NONE) {
                continue;
            }
            CheckReport report = check.report();
            gating++;
            if (report.up()) {
                up++;
            } else {
                reasons.add(check.name() + ": " + report.reason());
                healthy &= check.gate() != Gate.HEALTHY;
                writable = false;
            }
            long measured = report.replicationLagMs();
            lag = Math.max(lag, measured);
            if (check.maxLagMs() > 0 && measured >= 0) {
                lagRatio = Math.max(lagRatio, Math.min(1.0, (double) measured / check.maxLagMs()));
            }
        }
        double score = healthy ? round((gating == 0 ? 1.0 : (double) up / gating) * (1 - 0.5 * lagRatio)) : 0.0;
        return new RegionHealth(healthy, healthy && writable, lag, score, reasons);
    }

    private static double round(double score) {
        return Math.round(score * 1000) / 1000.0;
    }
}
