package io.unitas.core.crdt;

import java.util.Objects;

/**
 * A last-writer-wins register: the winning write's value, commit timestamp and region, and the version vector of
 * every write the register has seen (seed 003's "(vc, ts) double key"). Of two states, merge keeps the value of
 * <ol>
 *   <li>the one whose version vector has seen everything the other has (causality first: a write made after
 *       seeing another replaces it whatever the clocks say);</li>
 *   <li>when the vectors are concurrent, the later commit timestamp;</li>
 *   <li>at equal timestamps, the larger region id (a fixed, deterministic tiebreak),</li>
 * </ol>
 * and, when concurrent, the union of both vectors: a state that adopts another region's write still remembers its
 * own, so a region never numbers two writes alike and a vector never claims a write it has not seen.
 * {@link #write} stamps a new write with at least the winning write's timestamp plus one, so a writer whose clock
 * is behind still orders after what it saw. The winner is then always the latest of all writes seen by
 * (timestamp, region), consistent with the vectors, and {@link #merge} is a join: commutative, associative and
 * idempotent.
 *
 * <p>What it loses, by design: of two concurrent writes, the earlier (then the smaller region's) is dropped. Use
 * {@link Siblings} where no write may be dropped silently.
 *
 * <p>Immutable. {@link #winsOver} decides without allocating, and {@link #merge} returns one of its inputs,
 * allocating nothing, when one has seen the other (changes arriving in order); only concurrent states make a new
 * one, for the joined vector.
 *
 * @param <V> the value type, compared by {@code equals}
 */
public final class LwwRegister<V> {

    private final V value;
    private final VersionVector version;
    private final long timestamp;
    private final String region;

    private LwwRegister(V value, VersionVector version, long timestamp, String region) {
        this.value = value;
        this.version = version;
        this.timestamp = timestamp;
        this.region = region;
    }

    /** The first write of a register: {@code value}, set by {@code region} at {@code timestamp}. */
    public static <V> LwwRegister<V> initial(String region, V value, long timestamp) {
        return of(value, VersionVector.empty().increment(region), timestamp, region);
    }

    /**
     * A register from its stored state: the winning write's value, timestamp and region, and the vector of every
     * write seen, which must include one of {@code region}.
     */
    public static <V> LwwRegister<V> of(V value, VersionVector version, long timestamp, String region) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(region, "region");
        if (version.get(region) < 1) {
            throw new IllegalArgumentException("version " + version + " of a write by " + region
                                               + ": no write of " + region + " (expected: " + region + " >= 1)");
        }
        return new LwwRegister<>(value, version, timestamp, region);
    }

    /**
     * This register overwritten by {@code region} with {@code value}, committed at {@code timestamp} (milliseconds
     * or any unit all writers share). The new write has seen everything this state has: its vector is this one's
     * plus one write of {@code region}, and its timestamp is {@code max(timestamp, timestamp() + 1)}.
     */
    public LwwRegister<V> write(String region, V value, long timestamp) {
        Objects.requireNonNull(value, "value");
        long stamped = timestamp > this.timestamp ? timestamp : Math.addExact(this.timestamp, 1);
        return new LwwRegister<>(value, version.increment(region), stamped, region);
    }

    /**
     * Both states' writes: the value of the winner by the order in the class comment, and every write either has
     * seen. Commutative, associative and idempotent for states made by {@link #initial}, {@link #write} and
     * {@code merge} with unique region ids.
     */
    public LwwRegister<V> merge(LwwRegister<V> other) {
        if (other == this) {
            return this;
        }
        switch (version.compare(other.version)) {
            case AFTER, EQUAL:
                return this;
            case BEFORE:
                return other;
            default:
                LwwRegister<V> winner = laterThan(other) ? this : other;
                return new LwwRegister<>(winner.value, version.merge(other.version), winner.timestamp, winner.region);
        }
    }

    /** Whether a merge with {@code other} keeps this state's value (true also when both hold the same write). */
    public boolean winsOver(LwwRegister<V> other) {
        switch (version.compare(other.version)) {
            case AFTER, EQUAL:
                return true;
            case BEFORE:
                return false;
            default:
                return laterThan(other);
        }
    }

    // Concurrent states: the later commit, then the larger region id.
    private boolean laterThan(LwwRegister<V> other) {
        if (timestamp != other.timestamp) {
            return timestamp > other.timestamp;
        }
        return region.compareTo(other.region) >= 0;
    }

    /** The value of the winning write. */
    public V value() {
        return value;
    }

    /** Every write this register has seen: the winner's vector, joined with those of the writes it beat. */
    public VersionVector version() {
        return version;
    }

    /** The winning write's commit timestamp (possibly raised by {@link #write} to order it after what it saw). */
    public long timestamp() {
        return timestamp;
    }

    /** The region that made the winning write. */
    public String region() {
        return region;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LwwRegister<?> r && timestamp == r.timestamp && region.equals(r.region)
               && version.equals(r.version) && value.equals(r.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, version, timestamp, region);
    }

    @Override
    public String toString() {
        return "LwwRegister{" + value + " by " + region + " at " + timestamp + ", version=" + version + '}';
    }
}
