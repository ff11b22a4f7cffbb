package io.unitas.core.consistency;

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
    }

    /** Copies the list. */
    public MeasuredLag {
        samples = List.copyOf(samples);
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
