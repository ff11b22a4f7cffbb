package io.unitas.core.crdt;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A map from replica id to the number of that replica's writes seen (absent means 0). Compares causally
 * ({@link #compare}) and merges by taking each entry's maximum. Immutable; entries iterate in replica order.
 */
public final class VersionVector {

    private static final VersionVector EMPTY = new VersionVector(new TreeMap<>());

    private final TreeMap<String, Long> counters;

    private VersionVector(TreeMap<String, Long> counters) {
        this.counters = counters;
    }

    /** The vector that has seen nothing. */
    public static VersionVector empty() {
        return EMPTY;
    }

    /** A vector with the given counters; zero entries are dropped, negative ones rejected. */
    public static VersionVector of(Map<String, Long> counters) {
        TreeMap<String, Long> copy = new TreeMap<>();
        counters.forEach((replica, counter) -> {
            Objects.requireNonNull(replica, "replica");
            if (counter == null || counter < 0) {
                throw new IllegalArgumentException(
                        "counter of " + replica + ": " + counter + " (expected: >= 0)");
            }
            if (counter > 0) {
                copy.put(replica, counter);
            }
        });
        return copy.isEmpty() ? EMPTY : new VersionVector(copy);
    }

    /** How many of {@code replica}'s writes this vector has seen. */
    public long get(String replica) {
        return counters.getOrDefault(replica, 0L);
    }

    /** Whether the write {@code dot} is among those seen. */
    public boolean contains(Dot dot) {
        return dot.counter() <= get(dot.replica());
    }

    /** The next write of {@code replica} after everything seen: counter {@code get(replica) + 1}. */
    public Dot next(String replica) {
        return new Dot(replica, get(replica) + 1);
    }

    /** This vector having also seen {@code dot} (and, being a vector, every earlier write of its replica). */
    public VersionVector with(Dot dot) {
        if (contains(dot)) {
            return this;
        }
        TreeMap<String, Long> copy = new TreeMap<>(counters);
        copy.put(dot.replica(), dot.counter());
        return new VersionVector(copy);
    }

    /** This vector after one more write of {@code replica}. */
    public VersionVector increment(String replica) {
        return with(next(replica));
    }

    /** The entry-wise maximum: everything either vector has seen. */
    public VersionVector merge(VersionVector other) {
        if (other.counters.isEmpty() || other.equals(this)) {
            return this;
        }
        TreeMap<String, Long> copy = new TreeMap<>(counters);
        other.counters.forEach((replica, counter) -> copy.merge(replica, counter, Math::max));
        return new VersionVector(copy);
    }

    /** How this vector relates to {@code other}: {@code BEFORE} means this one happened before it. */
    public Causality compare(VersionVector other) {
        boolean less = false;
        boolean greater = false;
        TreeMap<String, Long> all = new TreeMap<>(counters);
        other.counters.forEach(all::putIfAbsent);
        for (String replica : all.keySet()) {
            long mine = get(replica);
            long theirs = other.get(replica);
            less |= mine < theirs;
            greater |= mine > theirs;
        }
        if (less && greater) {
            return Causality.CONCURRENT;
        }
        return less ? Causality.BEFORE : greater ? Causality.AFTER : Causality.EQUAL;
    }

    /** The non-zero counters, by replica id. */
    public Map<String, Long> counters() {
        return Collections.unmodifiableMap(counters);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VersionVector v && counters.equals(v.counters);
    }

    @Override
    public int hashCode() {
        return counters.hashCode();
    }

    @Override
    public String toString() {
        return counters.toString();
    }
}
