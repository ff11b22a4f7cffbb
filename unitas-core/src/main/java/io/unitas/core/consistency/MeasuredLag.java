package io.unitas.core.consistency;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Replication lag as it was measured (per unit and region by the health agents, read from the control plane's state
 * or a file): what a bounded-staleness budget is held against.
 *
 * @param samples every measurement, none negative
 */
public record MeasuredLag(List<Sample> samples) {

    /** One measurement. @param what what lagged ({@code unit u-paris to us}) @param lagMs by how much, in ms */
    public record Sample(String what, long lagMs) {

        /** Requires a description and a lag of at least 0. */
        public Sample {
            Objects.requireNonNull(what, "what");
            if (lagMs < 0) {
                throw new IllegalArgumentException(what + ": " + lagMs + " ms (expected: >= 0)");
            }
        }

        /** How far the database of {@code region} lags its primary. */
        public static Sample ofDatabase(String region, long lagMs) {
            return new Sample("the database of " + region, lagMs);
        }

        /** How far {@code to}'s copy of {@code unit} lags the changes {@code from} shipped. */
        public static Sample ofUnit(String unit, String from, String to, long lagMs) {
            return new Sample("unit " + unit + " from " + from + " to " + to, lagMs);
        }
    }

    /** Copies the list. */
    public MeasuredLag {
        samples = List.copyOf(samples);
    }

    /** The largest measurement when it is over {@code budget}: a read promised that budget may be staler. */
    public Optional<Sample> over(Duration budget) {
        return largest().filter(s -> s.lagMs() > budget.toMillis());
    }

    /** The largest measurement, if there is any: a read in any region may be this stale. */
    public Optional<Sample> largest() {
        Sample max = null;
        for (Sample s : samples) {
            if (max == null || s.lagMs() > max.lagMs()) {
                max = s;
            }
        }
        return Optional.ofNullable(max);
    }
}
