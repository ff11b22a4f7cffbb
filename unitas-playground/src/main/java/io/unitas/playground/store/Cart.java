package io.unitas.playground.store;

import io.unitas.core.crdt.Dot;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.OrMap;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A shopping cart that two regions can write during a failover and merge without losing an acknowledged item.
 * It is an {@link OrMap} from item id to quantity (the core's OR-map merge policy) with these semantics:
 * <ul>
 *   <li>{@link #set} replaces the writes of that item observed here with one write of the new quantity;</li>
 *   <li>{@link #remove} deletes the observed writes only, so an add or a quantity change made concurrently in
 *       another region wins (add-wins);</li>
 *   <li>when concurrent writes leave several quantities for one item, it reads as the largest of them (the
 *       map's value policy, {@link #LARGER}): a merge may keep the larger of two concurrent quantities, never
 *       drop an item a customer was told is in the cart. The next {@link #set} or {@link #add} of that item
 *       collapses them into one.</li>
 * </ul>
 * Immutable; {@link #merge} is commutative, associative and idempotent.
 */
public final class Cart {

    /** How concurrent quantities of one item read: the larger. A join on integers. */
    public static final MergePolicy<Integer> LARGER = Math::max;

    private static final Cart EMPTY = new Cart(OrMap.empty(LARGER));

    private final OrMap<String, Integer> items;

    private Cart(OrMap<String, Integer> items) {
        this.items = items;
    }

    /** The empty cart. */
    public static Cart empty() {
        return EMPTY;
    }

    /** A cart from its stored state; its value policy must be {@link #LARGER}. */
    public static Cart of(OrMap<String, Integer> items) {
        Objects.requireNonNull(items, "items");
        if (items.valuePolicy() != LARGER) {
            throw new IllegalArgumentException("cart's value policy: " + items.valuePolicy()
                                               + " (expected: Cart.LARGER)");
        }
        return new Cart(items);
    }

    /** The quantity of {@code item}, 0 when it is not in the cart. */
    public int quantity(String item) {
        Integer quantity = items.get(item);
        return quantity == null ? 0 : quantity;
    }

    /** Every item in the cart with its quantity, by item id. */
    public Map<String, Integer> items() {
        return Collections.unmodifiableMap(new TreeMap<>(items.asMap()));
    }

    /** This cart with {@code item} at {@code quantity}, written by {@code replica}; 0 removes the item. */
    public Cart set(String replica, String item, int quantity) {
        if (quantity < 0) {
            throw new IllegalArgumentException("quantity of " + item + ": " + quantity + " (expected: >= 0)");
        }
        if (quantity == 0) {
            return remove(item);
        }
        if (item.isEmpty()) {
            throw new IllegalArgumentException("item: '' (expected: a non-empty id)");
        }
        return new Cart(items.put(replica, item, quantity));
    }

    /** This cart with {@code count} more of {@code item}, written by {@code replica}. */
    public Cart add(String replica, String item, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count of " + item + ": " + count + " (expected: >= 1)");
        }
        return set(replica, item, Math.addExact(quantity(item), count));
    }

    /** This cart without the writes of {@code item} observed here. */
    public Cart remove(String item) {
        return new Cart(items.remove(item));
    }

    /** Both carts' writes together: see the class comment for how concurrent writes resolve. */
    public Cart merge(Cart other) {
        return new Cart(items.merge(other.items));
    }

    /** The underlying map, for storing and shipping the cart. */
    public OrMap<String, Integer> state() {
        return items;
    }

    /** Every live write as an (item, quantity) line: one per item, or several after concurrent writes. */
    public Set<CartLine> lines() {
        Set<CartLine> lines = new HashSet<>();
        items.entries().forEach((item, writes) -> {
            for (Integer quantity : writes.values()) {
                lines.add(new CartLine(item, quantity));
            }
        });
        return Collections.unmodifiableSet(lines);
    }

    /** The live writes of {@code line}'s item and quantity, for storing the cart. */
    Set<Dot> dots(CartLine line) {
        Set<Dot> dots = new HashSet<>();
        items.entries().getOrDefault(line.item(), Map.of()).forEach((dot, quantity) -> {
            if (quantity == line.quantity()) {
                dots.add(dot);
            }
        });
        return dots;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cart c && items.equals(c.items);
    }

    @Override
    public int hashCode() {
        return items.hashCode();
    }

    @Override
    public String toString() {
        return "Cart" + items();
    }
}
