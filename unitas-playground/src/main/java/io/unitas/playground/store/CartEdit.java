package io.unitas.playground.store;


/**
 * A change to a user's cart, applied by {@link RegionalStore#updateCart} to the stored cart under the store's write
 * lock. The store hands in the replica id to write with ({@link RegionalStore#replicaId()}), so no two writers share one.
 */
@FunctionalInterface
public interface CartEdit {

    /** The cart after this edit; {@code replica} is the id to pass to {@link Cart#add} and {@link Cart#set}. */
    Cart apply(Cart cart, String replica);
}
