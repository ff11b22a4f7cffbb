package io.unitas.core.capacity;

import java.util.List;
import java.util.Objects;

import io.unitas.core.Region;

/**
 * One round of a cascade that tripped at least one region.
 *
 * @param step    the round's number, from 1
 * @param tripped the regions that tripped in this round, in topology order
 */
public record CascadeStep(int step, List<Region> tripped) {

    /** Freezes {@code tripped}. */
    public CascadeStep {
        tripped = List.copyOf(Objects.requireNonNull(tripped, "tripped"));
    }
}
