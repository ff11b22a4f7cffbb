package io.unitas.playground.store;

import java.util.Objects;

/**
 * One write of a {@link Cart}'s item as stored and shipped: an item and the quantity one replica set for it.
 *
 * @param item     the item's id (a SKU)
 * @param quantity how many, at least 1
 */
public record CartLine(String item, int quantity) {

    /** Validates both parts. */
    public CartLine {
        Objects.requireNonNull(item, "item");
        if (item.isEmpty()) {
            throw new IllegalArgumentException("item: '' (expected: a non-empty id)");
        }
        if (quantity < 1) {
            throw new IllegalArgumentException("quantity of " + item + ": " + quantity + " (expected: >= 1)");
        }
    }
}
