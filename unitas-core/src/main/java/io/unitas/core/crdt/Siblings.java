package io.unitas.core.crdt;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Detect and surface: a register that keeps every concurrent write as a sibling instead of choosing one (a
 * multi-value register). Each version carries the version vector of its write; merge keeps every version no
 * other version has seen, so two regions that wrote during a partition both keep their write, listed by
 * {@link #versions()}, until someone resolves them. A later {@link #write} or {@link #resolve} has seen every
 * sibling and so replaces them all, everywhere it is merged.
 *
 * <p>Immutable; {@link #merge} is commutative, associative and idempotent. Replica ids must be unique per
 * writer, as for {@link OrSet}.
 *
 * @param <V> the value type, compared by {@code equals}
 */
public final class Siblings<V> {

    /**
     * One concurrent write.
     *
     * @param version the version vector of the write (every write it had seen, and itself)
     * @param value   the value written
     * @param <V>     the value type
     */
    public record Version<V>(VersionVector version, V value) {

        /** Validates both parts. */
        public Version {
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(value, "value");
        }
    }

    private static final Siblings<?> EMPTY = new Siblings<>(Set.of());

    private static final Comparator<Version<?>> ORDER = Comparator.comparing(v -> v.version().toString());

    // An antichain: no version has seen another.
    private final Set<Version<V>> versions;

    private Siblings(Set<Version<V>> versions) {
        this.versions = versions;
    }

    /** The register nobody has written. */
    @SuppressWarnings("unchecked")
    public static <V> Siblings<V> empty() {
        return (Siblings<V>) EMPTY;
    }

    /**
     * A register from its stored versions. Rejects a version another one has seen (it would have been replaced)
     * and two values under one vector.
     */
    public static <V> Siblings<V> of(List<Version<V>> versions) {
        for (int i = 0; i < versions.size(); i++) {
            for (int j = 0; j < versions.size(); j++) {
                Version<V> a = versions.get(i);
                Version<V> b = versions.get(j);
                if (i != j && (a.version().compare(b.version()) == Causality.BEFORE
                               || a.version().equals(b.version()) && !a.value().equals(b.value()))) {
                    throw new IllegalArgumentException(
                            "versions[" + i + "]: " + a.version() + " not concurrent with versions[" + j + "]: "
                            + b.version() + " (expected: siblings that have not seen each other)");
                }
            }
        }
        return new Siblings<>(Set.copyOf(versions));
    }

    /**
     * This register after {@code replica} writes {@code value} having seen every sibling: one version whose vector
     * dominates them all.
     */
    public Siblings<V> write(String replica, V value) {
        return new Siblings<>(Set.of(new Version<>(version().increment(replica), value)));
    }

    /**
     * The explicit resolution of a conflict: {@code chosen} (one of the siblings' values, or a value made from
     * them) written by {@code replica} over every sibling, so it replaces them on every replica it reaches. A
     * sibling written concurrently with the resolution, which it has not seen, stays listed beside it.
     */
    public Siblings<V> resolve(String replica, V chosen) {
        return write(replica, chosen);
    }

    /** Every version either state holds that no version of the other has seen. */
    public Siblings<V> merge(Siblings<V> other) {
        if (other == this || other.versions.isEmpty()) {
            return this;
        }
        if (versions.isEmpty()) {
            return other;
        }
        Set<Version<V>> kept = new HashSet<>();
        keepUnseen(versions, other.versions, kept);
        keepUnseen(other.versions, versions, kept);
        if (kept.equals(versions)) {
            return this;
        }
        return kept.equals(other.versions) ? other : new Siblings<>(Set.copyOf(kept));
    }

    private static <V> void keepUnseen(Set<Version<V>> mine, Set<Version<V>> theirs, Set<Version<V>> kept) {
        for (Version<V> v : mine) {
            boolean seen = false;
            for (Version<V> t : theirs) {
                seen |= v.version().compare(t.version()) == Causality.BEFORE;
            }
            if (!seen) {
                kept.add(v);
            }
        }
    }

    /** Whether concurrent writes are waiting for a resolution (two or more siblings). */
    public boolean isConflict() {
        return versions.size() > 1;
    }

    /** Whether nobody has written the register. */
    public boolean isEmpty() {
        return versions.isEmpty();
    }

    /** Every sibling with its vector, in a fixed order (by vector). */
    public List<Version<V>> versions() {
        List<Version<V>> list = new ArrayList<>(versions);
        list.sort(ORDER);
        return List.copyOf(list);
    }

    /** The siblings' values, in the order of {@link #versions()}. */
    public List<V> values() {
        return versions().stream().map(Version::value).toList();
    }

    /**
     * The value when there is exactly one version.
     *
     * @throws IllegalStateException when the register is empty or in conflict, naming the siblings
     */
    public V value() {
        if (versions.size() != 1) {
            throw new IllegalStateException("siblings: " + versions() + " (expected: exactly one version;"
                                            + " resolve a conflict first)");
        }
        return versions.iterator().next().value();
    }

    /** Everything this register has seen: the join of its versions' vectors. */
    public VersionVector version() {
        VersionVector seen = VersionVector.empty();
        for (Version<V> v : versions) {
            seen = seen.merge(v.version());
        }
        return seen;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Siblings<?> s && versions.equals(s.versions);
    }

    @Override
    public int hashCode() {
        return versions.hashCode();
    }

    @Override
    public String toString() {
        return "Siblings" + versions();
    }
}
