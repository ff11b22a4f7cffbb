package io.unitas.data.reconcile;

/**
 * The service's hook that undoes a duplicate: given the entity done twice and the one that stands, it says what
 * compensates it (a refund). The caller stores the compensation with the duplicate, in the new home, in one
 * transaction, so the hook must not have effects of its own beyond building the value.
 *
 * @param <T> the entity (an order)
 */
@FunctionalInterface
public interface Compensator<T> {

    /** The compensation of {@code duplicate}, done under the same key as {@code kept}. */
    Compensation compensate(T duplicate, T kept);
}
