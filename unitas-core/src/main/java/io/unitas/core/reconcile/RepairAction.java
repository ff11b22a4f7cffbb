package io.unitas.core.reconcile;

import io.unitas.core.crdt.MergePolicy;
import java.util.Objects;
import java.util.Optional;

/**
 * What reconciliation does with one key whose stored state differs between the unit's home and this region, decided
 * by the entity's merge policy so that no write is lost: the home's copy is authoritative for what it has seen, and
 * whatever this region holds that the home has not seen is kept.
 */
public enum RepairAction {
    /** Both hold the same state: nothing to do. */
    NONE,
    /** The home has it, this region has nothing: store the home's state here. */
    ADOPT,
    /**
     * The home's state has seen everything this region's has ({@code merge(home, here)} is the home's) but they
     * differ (this copy is behind, or was altered): store the home's state here, replacing this one.
     */
    REPLACE,
    /**
     * This region holds writes the home has not seen yet (on their way there): store the join of both here; the
     * copies converge once those writes arrive at home.
     */
    MERGE,
    /** Only this region has it, and wrote it itself: on its way to the home, kept. */
    KEEP,
    /** Only this region has it, and did not write it: nothing the home or this region wrote; removed. */
    DELETE;

    /**
     * The action for one key: {@code home} and {@code here} are the two copies' states (empty when absent);
     * {@code writtenHere} says whether this region wrote the key itself.
     */
    public static <S> RepairAction decide(MergePolicy<S> policy, Optional<S> home, Optional<S> here,
                                          boolean writtenHere) {
        Objects.requireNonNull(policy, "policy");
        if (home.isEmpty()) {
            return here.isEmpty() ? NONE : writtenHere ? KEEP : DELETE;
        }
        if (here.isEmpty()) {
            return ADOPT;
        }
        if (home.get().equals(here.get())) {
            return NONE;
        }
        return policy.merge(home.get(), here.get()).equals(home.get()) ? REPLACE : MERGE;
    }

    /** Whether this action writes or removes this region's copy. */
    public boolean changesHere() {
        return this == ADOPT || this == REPLACE || this == MERGE || this == DELETE;
    }
}
