package io.unitas.core.capacity;

import java.util.List;
import java.util.Objects;

import io.unitas.core.HealthSnapshot;

/**
 * What happens when overloaded regions trip and their load moves on, round after round, until a round trips
 * nothing.
 *
 * @param steps  the rounds that tripped something, in order; empty when nothing was overloaded
 * @param health the health after the last round: the input with every tripped region unhealthy
 * @param plan   the load of the last round, which tripped nothing
 */
public record Cascade(List<CascadeStep> steps, HealthSnapshot health, LoadPlan plan) {

    /** Freezes {@code steps}. */
    public Cascade {
        steps = List.copyOf(Objects.requireNonNull(steps, "steps"));
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(plan, "plan");
    }
}
