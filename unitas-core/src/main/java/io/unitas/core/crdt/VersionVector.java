package io.unitas.core.crdt;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A map from replica id to the number of that replica's writes seen (absent means 0). Compares causally
 * ({@link #compare}) and merges by taking each entry's maximum. Immutable; entries iterate in replica order.
 *
 * <p>The entries are two parallel arrays sorted by replica id, so {@link #compare}, {@link #get}, {@link #contains}
 * and {@link #dominates} walk them without allocating, and {@link #merge} allocates only when neither vector has
 * already seen everything the other has.
 */
public final class VersionVector {

    private static final VersionVector EMPTY = new VersionVector(new String[0], new long[0]);

    // Sorted by String.compareTo, no duplicates, every counter >= 1.
    private final String[] replicas;
    private final long[] counters;

    private VersionVector(String[] replicas, long[] counters) {
        this.replicas = replicas;
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
            if (replica.isEmpty()) {
                throw new IllegalArgumentException("replica: '' (expected: a non-empty id)");
            }
            if (counter > 0) {
                copy.put(replica, counter);
            }
        });
        if (copy.isEmpty()) {
            return EMPTY;
        }
        String[] ids = new String[copy.size()];
        long[] values = new long[copy.size()];
        int i = 0;
        for (Map.Entry<String, Long> e : copy.entrySet()) {
            ids[i] = e.getKey();
            values[i++] = e.getValue();
        }
        return new VersionVector(ids, values);
    }

    /** How many of {@code replica}'s writes this vector has seen. */
    public long get(String replica) {
        int i = indexOf(replica);
        return i >= 0 ? counters[i] : 0L;
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
        int i = indexOf(dot.replica());
        if (i >= 0) {
            if (dot.counter() <= counters[i]) {
                return this;
            }
            long[] values = counters.clone();
            values[i] = dot.counter();
            return new VersionVector(replicas, values);
        }
        int at = -i - 1;
        String[] ids = new String[replicas.length + 1];
        long[] values = new long[replicas.length + 1];
        System.arraycopy(replicas, 0, ids, 0, at);
        System.arraycopy(counters, 0, values, 0, at);
        ids[at] = dot.replica();
        values[at] = dot.counter();
        System.arraycopy(replicas, at, ids, at + 1, replicas.length - at);
        System.arraycopy(counters, at, values, at + 1, replicas.length - at);
        return new VersionVector(ids, values);
    }

    /** This vector after one more write of {@code replica}. */
    public VersionVector increment(String replica) {
        return with(next(replica));
    }

    /**
     * The entry-wise maximum: everything either vector has seen. Returns one of the two, without allocating, when
     * it has already seen everything the other has.
     */
    public VersionVector merge(VersionVector other) {
        switch (compare(other)) {
            case AFTER, EQUAL:
                return this;
            case BEFORE:
                return other;
            default:
                break;
        }
        String[] ids = new String[replicas.length + other.replicas.length];
        long[] values = new long[ids.length];
        int i = 0;
        int j = 0;
        int n = 0;
        while (i < replicas.length || j < other.replicas.length) {
            int c = i == replicas.length ? 1
                    : j == other.replicas.length ? -1
                    : replicas[i].compareTo(other.replicas[j]);
            if (c == 0) {
                ids[n] = replicas[i];
                values[n++] = Math.max(counters[i++], other.counters[j++]);
            } else if (c < 0) {
                ids[n] = replicas[i];
                values[n++] = counters[i++];
            } else {
                ids[n] = other.replicas[j];
                values[n++] = other.counters[j++];
            }
        }
        return new VersionVector(Arrays.copyOf(ids, n), Arrays.copyOf(values, n));
    }

    /**
     * How this vector relates to {@code other}: {@code BEFORE} means this one happened before it, {@code CONCURRENT}
     * that each has seen a write the other has not. One walk over both sorted entry lists; no allocation.
     */
    public Causality compare(VersionVector other) {
        if (other == this) {
            return Causality.EQUAL;
        }
        boolean less = false;
        boolean greater = false;
        int i = 0;
        int j = 0;
        while (i < replicas.length && j < other.replicas.length) {
            int c = replicas[i].compareTo(other.replicas[j]);
            if (c == 0) {
                long mine = counters[i++];
                long theirs = other.counters[j++];
                less |= mine < theirs;
                greater |= mine > theirs;
            } else if (c < 0) {
                greater = true; // an entry the other lacks is >= 1 against its 0
                i++;
            } else {
                less = true;
                j++;
            }
            if (less && greater) {
                return Causality.CONCURRENT;
            }
        }
        greater |= i < replicas.length;
        less |= j < other.replicas.length;
        if (less && greater) {
            return Causality.CONCURRENT;
        }
        return less ? Causality.BEFORE : greater ? Causality.AFTER : Causality.EQUAL;
    }

    /** Whether this vector has seen every write {@code other} has ({@code AFTER} or {@code EQUAL}). */
    public boolean dominates(VersionVector other) {
        Causality c = compare(other);
        return c == Causality.AFTER || c == Causality.EQUAL;
    }

    /** Whether neither vector has seen every write of the other. */
    public boolean isConcurrentWith(VersionVector other) {
        return compare(other) == Causality.CONCURRENT;
    }

    /** The sum of the counters: how many writes this vector has seen in all. */
    public long total() {
        long total = 0;
        for (long counter : counters) {
            total = Math.addExact(total, counter);
        }
        return total;
    }

    /** The non-zero counters, by replica id. */
    public Map<String, Long> counters() {
        TreeMap<String, Long> map = new TreeMap<>();
        for (int i = 0; i < replicas.length; i++) {
            map.put(replicas[i], counters[i]);
        }
        return Collections.unmodifiableMap(map);
    }

    private int indexOf(String replica) {
        return Arrays.binarySearch(replicas, replica);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VersionVector v && Arrays.equals(replicas, v.replicas) && Arrays.equals(counters, v.counters);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(replicas) * 31 + Arrays.hashCode(counters);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("{");
        for (int i = 0; i < replicas.length; i++) {
            out.append(i > 0 ? ", " : "").append(replicas[i]).append('=').append(counters[i]);
        }
        return out.append('}').toString();
    }
}
