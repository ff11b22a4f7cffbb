package io.unitas.data.reconcile;

import java.util.Optional;
import java.util.function.BinaryOperator;

/**
 * A service's rule for one kind of entity: what becomes of the old home's unshipped version ({@code theirs}) given
 * what the new home holds ({@code ours}, empty when it has none). Pure: reads nothing, writes nothing.
 *
 * @param <T> the entity
 */
@FunctionalInterface
public interface ReconcilePolicy<T> {

    /** The outcome for {@code theirs} against {@code ours}. */
    Outcome<T> decide(T theirs, Optional<T> ours);

    /**
     * No merge: adopted where the new home has nothing, nothing to do where it holds an equal value, else a
     * conflict naming both.
     */
    static <T> ReconcilePolicy<T> conflictUnlessEqual() {
        return (theirs, ours) -> ours.isEmpty() ? Outcome.adopt(theirs)
                : ours.get().equals(theirs) ? Outcome.same()
                : Outcome.diverged("old home has " + theirs + ", new home has " + ours.get());
    }

    /** A merge (a CRDT's join): adopted where the new home has nothing, else merged. */
    static <T> ReconcilePolicy<T> merging(BinaryOperator<T> merge) {
        return (theirs, ours) -> ours.isEmpty() ? Outcome.adopt(theirs) : Outcome.merge(merge.apply(ours.get(), theirs));
    }
}
