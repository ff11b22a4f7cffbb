package io.unitas.core.switchover;

import java.time.Instant;
import java.util.Objects;

/**
 * One recorded step of a switchover: the phase it entered, when, and what was seen
 * ({@code "target eu lag 80 ms <= max_lag 500 ms"}).
 */
public record SwitchoverStep(SwitchoverPhase phase, Instant at, String detail) {

    /** Requires every part. */
    public SwitchoverStep {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(detail, "detail");
    }
}
