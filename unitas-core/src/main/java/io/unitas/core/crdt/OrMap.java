package io.unitas.core.crdt;

import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * An observed-remove map whose keys come and go like the elements of an {@link OrSet} and whose values are
 * merged by their own {@link MergePolicy}. Every {@link #put} is tagged with a fresh {@link Dot} and replaces the
 * writes of that key observed here; {@link #remove} deletes the observed writes only. So a put that a remove did
 * not see survives (add-wins), and when concurrent puts leave several writes for one key, each is kept and
 * {@link #get} reads their merge by the value policy, until the next put of that key collapses them into one.
 *
 * <p>Merging keeps a write unless the other state saw it and replaced or removed it, exactly as the OR-set keeps
 * a dot, so {@link #merge} is commutative, associative and idempotent whatever the value policy; the policy only
 * has to be a join itself for reads to be the same on every replica.
 *
 * <p>Example, a cart whose concurrent quantities read as the larger:
 * <pre>{@code
 * OrMap<String, Integer> cart = OrMap.empty(Math::max);
 * OrMap<String, Integer> cn = cart.put("cn", "book", 5);
 * OrMap<String, Integer> eu = cart.put("eu", "book", 3).put("eu", "cup", 1);
 * cn.merge(eu).asMap();   // {book=5, cup=1}: both writes of book are kept and read as max(5, 3)
 * }</pre>
 *
 * <p>Immutable. Replica ids must be unique per writer, as for {@link OrSet}.
 *
 * @param <K> the key type, compared by {@code equals}
 * @param <V> the value type
 */
public final class OrMap<K, V> {

    private static final Comparator<Dot> DOT_ORDER =
            Comparator.comparing(Dot::replica).thenComparingLong(Dot::counter);

    private final Map<K, Map<Dot, V>> entries;
    private final VersionVector context;
    private final MergePolicy<V> values;

    private OrMap(Map<K, Map<Dot, V>> entries, VersionVector context, MergePolicy<V> values) {
        this.entries = entries;
        this.context = context;
        this.values = values;
    }

    /** The empty map that has seen nothing; concurrent writes of one key are read through {@code values}. */
    public static <K, V> OrMap<K, V> empty(MergePolicy<V> values) {
        return new OrMap<>(Map.of(), VersionVector.empty(), Objects.requireNonNull(values, "values"));
    }

    /**
     * A map from its stored state: each present key with the live writes (dot and value) that keep it present,
     * and the context of every dot seen. Rejects a dot outside the context, a key without writes, and one dot
     * under two keys.
     */
    public static <K, V> OrMap<K, V> of(MergePolicy<V> values, Map<K, Map<Dot, V>> entries, VersionVector context) {
        Objects.requireNonNull(values, "values");
        Map<K, Map<Dot, V>> copy = new HashMap<>();
        Set<Dot> seen = new HashSet<>();
        entries.forEach((key, writes) -> {
            Objects.requireNonNull(key, "key");
            if (writes.isEmpty()) {
                throw new IllegalArgumentException("writes of " + key + ": {} (expected: at least one)");
            }
            writes.forEach((dot, value) -> {
                Objects.requireNonNull(value, "value of " + key);
                if (!context.contains(dot)) {
                    throw new IllegalArgumentException("dot " + dot + " of " + key + ": not in context " + context
                                                       + " (expected: every dot seen by the context)");
                }
                if (!seen.add(dot)) {
                    throw new IllegalArgumentException("dot " + dot + " of " + key
                                                       + ": also under another key (expected: one write per dot)");
                }
            });
            copy.put(key, Map.copyOf(writes));
        });
        return new OrMap<>(Collections.unmodifiableMap(copy), context, values);
    }

    /** Whether {@code key} is present. */
    public boolean containsKey(K key) {
        return entries.containsKey(key);
    }

    /** The present keys. */
    public Set<K> keys() {
        return entries.keySet();
    }

    /** The value of {@code key}: its live writes merged by the value policy; {@code null} when absent. */
    public V get(K key) {
        Map<Dot, V> writes = entries.get(key);
        if (writes == null) {
            return null;
        }
        if (writes.size() == 1) {
            return writes.values().iterator().next();
        }
        // The policy is a join, so any order gives the same value; a fixed one keeps even a careless policy stable.
        TreeMap<Dot, V> ordered = new TreeMap<>(DOT_ORDER);
        ordered.putAll(writes);
        V value = null;
        for (V v : ordered.values()) {
            value = value == null ? v : values.merge(value, v);
        }
        return value;
    }

    /** Every present key with its value as {@link #get} reads it. */
    public Map<K, V> asMap() {
        Map<K, V> map = new LinkedHashMap<>();
        for (K key : entries.keySet()) {
            map.put(key, get(key));
        }
        return Collections.unmodifiableMap(map);
    }

    /** Each present key with its live writes: more than one after concurrent puts not yet collapsed. */
    public Map<K, Map<Dot, V>> entries() {
        return entries;
    }

    /** Every dot this state has seen, including those of replaced and removed writes. */
    public VersionVector context() {
        return context;
    }

    /** The policy that reads concurrent writes of one key. */
    public MergePolicy<V> valuePolicy() {
        return values;
    }

    /** This map with {@code key} set to {@code value} by {@code replica}, replacing the key's observed writes. */
    public OrMap<K, V> put(String replica, K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Dot dot = context.next(replica);
        Map<K, Map<Dot, V>> copy = new HashMap<>(entries);
        copy.put(key, Map.of(dot, value));
        return new OrMap<>(Collections.unmodifiableMap(copy), context.with(dot), values);
    }

    /** This map without {@code key}: removes the writes observed here, not concurrent ones made elsewhere. */
    public OrMap<K, V> remove(K key) {
        if (!entries.containsKey(key)) {
            return this;
        }
        Map<K, Map<Dot, V>> copy = new HashMap<>(entries);
        copy.remove(key);
        return new OrMap<>(Collections.unmodifiableMap(copy), context, values);
    }

    /**
     * Everything either state knows: a write survives unless the other state saw it and replaced or removed it.
     * Commutative, associative and idempotent; the result reads values by this map's policy.
     */
    public OrMap<K, V> merge(OrMap<K, V> other) {
        if (other == this) {
            return this;
        }
        Map<K, Map<Dot, V>> merged = new HashMap<>();
        Set<K> all = new HashSet<>(entries.keySet());
        all.addAll(other.entries.keySet());
        for (K key : all) {
            Map<Dot, V> mine = entries.getOrDefault(key, Map.of());
            Map<Dot, V> theirs = other.entries.getOrDefault(key, Map.of());
            Map<Dot, V> kept = new HashMap<>();
            mine.forEach((dot, value) -> {
                if (theirs.containsKey(dot) || !other.context.contains(dot)) {
                    kept.put(dot, value);
                }
            });
            theirs.forEach((dot, value) -> {
                if (!context.contains(dot)) {
                    kept.put(dot, value);
                }
            });
            if (!kept.isEmpty()) {
                merged.put(key, Map.copyOf(kept));
            }
        }
        return new OrMap<>(Collections.unmodifiableMap(merged), context.merge(other.context), values);
    }

    /** Whether the value policy reports a conflict in the value of any key (always false for a merging policy). */
    public boolean isConflict() {
        for (K key : entries.keySet()) {
            if (values.isConflict(get(key))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OrMap<?, ?> m && entries.equals(m.entries) && context.equals(m.context);
    }

    @Override
    public int hashCode() {
        return entries.hashCode() * 31 + context.hashCode();
    }

    @Override
    public String toString() {
        return "OrMap{" + entries + ", context=" + context + '}';
    }
}
