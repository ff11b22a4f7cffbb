package io.unitas.core.capacity;

import java.util.List;
import java.util.Objects;

/**
 * A capacity-aware placement of users: one {@link Placement} per user, in input order, and the load it puts on
 * every region.
 *
 * @param placements one per input user, in input order
 * @param plan       the load each region carries under these placements
 */
public record Spillover(List<Placement> placements, LoadPlan plan) {

    /** Freezes {@code placements}. */
    public Spillover {
        placements = List.copyOf(Objects.requireNonNull(placements, "placements"));
        Objects.requireNonNull(plan, "plan");
    }
}
