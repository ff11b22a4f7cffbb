package io.unitas.data.reconcile;

import java.util.Objects;

/**
 * What a {@link ReconcilePolicy} decides about one change its old home did not ship: a value, never an exception.
 *
 * @param <T> the entity
 */
public sealed interface Outcome<T> {

    /** Nothing in the new home diverged from it (absent there): it is written there as the new home's own write. */
    record Adopt<T>(T theirs) implements Outcome<T> {}

    /** The new home already holds the same: nothing to do. */
    record Same<T>() implements Outcome<T> {}

    /** Both sides changed it and a merge exists (a CRDT): the merge is written in the new home. */
    record Merge<T>(T merged) implements Outcome<T> {}

    /** Both sides changed it, no merge exists: the new home's stays, the old home's is kept aside as a conflict. */
    record Diverged<T>(String detail) implements Outcome<T> {
        /** Requires a detail. */
        public Diverged {
            Objects.requireNonNull(detail, "detail");
        }
    }

    /** The same operation was done on both sides: the new home's stands, the old home's is compensated. */
    record Duplicate<T>(T duplicate, T kept) implements Outcome<T> {}

    /** {@link Adopt}. */
    static <T> Outcome<T> adopt(T theirs) {
        return new Adopt<>(theirs);
    }

    /** {@link Same}. */
    static <T> Outcome<T> same() {
        return new Same<>();
    }

    /** {@link Merge}. */
    static <T> Outcome<T> merge(T merged) {
        return new Merge<>(merged);
    }

    /** {@link Diverged}. */
    static <T> Outcome<T> diverged(String detail) {
        return new Diverged<>(detail);
    }

    /** {@link Duplicate}. */
    static <T> Outcome<T> duplicate(T duplicate, T kept) {
        return new Duplicate<>(duplicate, kept);
    }
}
