package io.unitas.core.crdt;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * An add-wins observed-remove set. Every add is tagged with a fresh {@link Dot} of the adding replica; a remove
 * deletes only the dots it has observed, so an add that a remove did not see survives the merge. The causal
 * context (every dot this state has seen) is a {@link VersionVector}, which stays exact because states are
 * merged whole and each replica numbers its own adds 1, 2, 3…
 *
 * <p>Immutable: every operation returns a new set. Replica ids must be unique per writer: two writers adding
 * under one id would mint the same dot for different adds.
 *
 * @param <E> the element type, compared by {@code equals}
 */
public final class OrSet<E> {

    private static final OrSet<?> EMPTY = new OrSet<>(Map.of(), VersionVector.empty());

    private final Map<E, Set<Dot>> entries;
    private final VersionVector context;

    private OrSet(Map<E, Set<Dot>> entries, VersionVector context) {
        this.entries = entries;
        this.context = context;
    }

    /** The empty set that has seen nothing. */
    @SuppressWarnings("unchecked")
    public static <E> OrSet<E> empty() {
        return (OrSet<E>) EMPTY;
    }

    /**
     * A set from its stored state: each present element with the dots of its live adds, and the context of
     * every dot seen. Rejects a dot outside the context or an element without dots.
     */
    public static <E> OrSet<E> of(Map<E, Set<Dot>> entries, VersionVector context) {
        Map<E, Set<Dot>> copy = new HashMap<>();
        entries.forEach((element, dots) -> {
            Objects.requireNonNull(element, "element");
            if (dots.isEmpty()) {
                throw new IllegalArgumentException("dots of " + element + ": [] (expected: at least one)");
            }
            for (Dot dot : dots) {
                if (!context.contains(dot)) {
                    throw new IllegalArgumentException(
                            "dot " + dot + " of " + element + ": not in context " + context
                            + " (expected: every dot seen by the context)");
                }
            }
            copy.put(element, Set.copyOf(dots));
        });
        return new OrSet<>(Collections.unmodifiableMap(copy), context);
    }

    /** Whether {@code element} is present. */
    public boolean contains(E element) {
        return entries.containsKey(element);
    }

    /** The present elements. */
    public Set<E> elements() {
        return entries.keySet();
    }

    /** Each present element with the dots of the adds that keep it present. */
    public Map<E, Set<Dot>> entries() {
        return entries;
    }

    /** Every dot this state has seen, including those of removed adds. */
    public VersionVector context() {
        return context;
    }

    /** This set with {@code element} added by {@code replica}; the add replaces the element's observed adds. */
    public OrSet<E> add(String replica, E element) {
        Objects.requireNonNull(element, "element");
        Dot dot = context.next(replica);
        Map<E, Set<Dot>> copy = new HashMap<>(entries);
        copy.put(element, Set.of(dot));
        return new OrSet<>(Collections.unmodifiableMap(copy), context.with(dot));
    }

    /** This set without {@code element}: removes the adds observed here, not concurrent ones made elsewhere. */
    public OrSet<E> remove(E element) {
        if (!entries.containsKey(element)) {
            return this;
        }
        Map<E, Set<Dot>> copy = new HashMap<>(entries);
        copy.remove(element);
        return new OrSet<>(Collections.unmodifiableMap(copy), context);
    }

    /**
     * Everything either state knows: an add survives unless the other state saw it and removed it. Commutative,
     * associative and idempotent.
     */
    public OrSet<E> merge(OrSet<E> other) {
        if (other == this) {
            return this;
        }
        Map<E, Set<Dot>> merged = new HashMap<>();
        Set<E> all = new HashSet<>(entries.keySet());
        all.addAll(other.entries.keySet());
        for (E element : all) {
            Set<Dot> mine = entries.getOrDefault(element, Set.of());
            Set<Dot> theirs = other.entries.getOrDefault(element, Set.of());
            Set<Dot> kept = new HashSet<>();
            for (Dot dot : mine) {
                if (theirs.contains(dot) || !other.context.contains(dot)) {
                    kept.add(dot);
                }
            }
            for (Dot dot : theirs) {
                if (!context.contains(dot)) {
                    kept.add(dot);
                }
            }
            if (!kept.isEmpty()) {
                merged.put(element, Set.copyOf(kept));
            }
        }
        return new OrSet<>(Collections.unmodifiableMap(merged), context.merge(other.context));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OrSet<?> s && entries.equals(s.entries) && context.equals(s.context);
    }

    @Override
    public int hashCode() {
        return entries.hashCode() * 31 + context.hashCode();
    }

    @Override
    public String toString() {
        return "OrSet{" + entries + ", context=" + context + '}';
    }
}
