package io.unitas.core.crdt;

import java.util.Objects;

/**
 * One line of a {@link Cart} as stored in its set: an item and the quantity one replica set for it.
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
