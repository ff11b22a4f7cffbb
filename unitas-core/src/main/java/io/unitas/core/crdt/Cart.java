package io.unitas.core.crdt;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A shopping cart that two regions can write during a failover and merge without losing an acknowledged item.
 * It is an {@link OrSet} of {@link CartLine}s with these semantics:
 * <ul>
 *   <li>{@link #set} replaces the lines of that item observed here with one line of the new quantity;</li>
 *   <li>{@link #remove} deletes the observed lines only, so an add or a quantity change made concurrently in
 *       another region wins (add-wins);</li>
 *   <li>when concurrent writes leave several lines for one item, its quantity is the largest of them: a merge
 *       may keep the larger of two concurrent quantities, never drop an item a customer was told is in the
 *       cart. The next {@link #set} or {@link #add} of that item collapses the lines into one.</li>
 * </ul>
 * Immutable; {@link #merge} is commutative, associative and idempotent.
 */
public final class Cart {

    private static final Cart EMPTY = new Cart(OrSet.empty());

    private final OrSet<CartLine> lines;

    private Cart(OrSet<CartLine> lines) {
        this.lines = lines;
    }

    /** The empty cart. */
    public static Cart empty() {
        return EMPTY;
    }

    /** A cart from its stored state. */
    public static Cart of(OrSet<CartLine> lines) {
        return new Cart(Objects.requireNonNull(lines, "lines"));
    }

    /** The quantity of {@code item}, 0 when it is not in the cart. */
    public int quantity(String item) {
        int quantity = 0;
        for (CartLine line : lines.elements()) {
            if (line.item().equals(item)) {
                quantity = Math.max(quantity, line.quantity());
            }
        }
        return quantity;
    }

    /** Every item in the cart with its quantity, by item id. */
    public Map<String, Integer> items() {
        TreeMap<String, Integer> items = new TreeMap<>();
        for (CartLine line : lines.elements()) {
            items.merge(line.item(), line.quantity(), Math::max);
        }
        return Collections.unmodifiableMap(items);
    }

    /** This cart with {@code item} at {@code quantity}, written by {@code replica}; 0 removes the item. */
    public Cart set(String replica, String item, int quantity) {
        if (quantity < 0) {
            throw new IllegalArgumentException("quantity of " + item + ": " + quantity + " (expected: >= 0)");
        }
        OrSet<CartLine> without = removeLines(item);
        return new Cart(quantity == 0 ? without : without.add(replica, new CartLine(item, quantity)));
    }

    /** This cart with {@code count} more of {@code item}, written by {@code replica}. */
    public Cart add(String replica, String item, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count of " + item + ": " + count + " (expected: >= 1)");
        }
        return set(replica, item, Math.addExact(quantity(item), count));
    }

    /** This cart without the lines of {@code item} observed here. */
    public Cart remove(String item) {
        return new Cart(removeLines(item));
    }

    /** Both carts' writes together: see the class comment for how concurrent writes resolve. */
    public Cart merge(Cart other) {
        return new Cart(lines.merge(other.lines));
    }

    /** The underlying set, for storing and shipping the cart. */
    public OrSet<CartLine> lines() {
        return lines;
    }

    private OrSet<CartLine> removeLines(String item) {
        OrSet<CartLine> result = lines;
        for (CartLine line : lines.elements()) {
            if (line.item().equals(item)) {
                result = result.remove(line);
            }
        }
        return result;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cart c && lines.equals(c.lines);
    }

    @Override
    public int hashCode() {
        return lines.hashCode();
    }

    @Override
    public String toString() {
        return "Cart" + items();
    }
}
