package io.unitas.core.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.unitas.core.RegionHealth;

/**
 * How a calculated check turns its children's verdicts into one (Route 53's calculated health checks): given how
 * many children are up out of how many, it answers nothing when satisfied, or what it expected.
 */
@FunctionalInterface
public interface Aggregation {

    /** Empty when {@code up} of {@code total} children satisfy it, otherwise what was expected ({@code "all"}). */
    Optional<String> unmet(int up, int total);

    /** Up when every child is up. */
    static Aggregation all() {
        return (up, total) -> up == total ? Optional.empty() : Optional.of("all");
    }

    /** Up when at least one child is up. */
    static Aggregation any() {
        return (up, total) -> up >= 1 ? Optional.empty() : Optional.of("at least 1");
    }

    /** Up when at least {@code k} children are up; {@code k} must be at least 1. */
    static Aggregation atLeast(int k) {
        if (k < 1) {
            throw new IllegalArgumentException("at-least: " + k + " (expected: >= 1)");
        }
        return (up, total) -> up >= k ? Optional.empty() : Optional.of("at least " + k);
    }

    /**
     * The calculated check over {@code children} (name → report, in order): its latency is the slowest child's,
     * its lag the largest known one, and when down its reason names the failing children.
     */
    default CheckReport apply(Map<String, CheckReport> children) {
        int up = 0;
        long latency = 0;
        long lag = RegionHealth.UNKNOWN_LAG;
        List<String> failing = new ArrayList<>();
        for (Map.Entry<String, CheckReport> child : children.entrySet()) {
            CheckReport report = child.getValue();
            if (report.up()) {
                up++;
            } else {
                failing.add(child.getKey() + ": " + report.reason());
            }
            latency = Math.max(latency, report.latencyMs());
            lag = Math.max(lag, report.replicationLagMs());
        }
        int total = children.size();
        String summary = up + " of " + total + " up";
        Optional<String> unmet = unmet(up, total);
        String reason = unmet.map(expected -> summary + " (expected: " + expected + "); "
                                              + String.join("; ", failing)).orElse("");
        return new CheckReport(unmet.isEmpty(), latency, reason, lag, Map.of("children", summary));
    }
}
