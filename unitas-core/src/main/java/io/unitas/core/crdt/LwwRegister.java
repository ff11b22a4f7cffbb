package io.unitas.core.crdt;

import java.util.Objects;

/**
 * A last-writer-wins register: one value, the version vector of the write that set it, the write's commit
 * timestamp and the region that made it (seed 003's "(vc, ts) double key"). Of two states, merge keeps
 * <ol>
 *   <li>the one whose version vector has seen the other's write (causality first: a write made after seeing
 *       another replaces it whatever the clocks say);</li>
 *   <li>when the vectors are concurrent, the later commit timestamp;</li>
 *   <li>at equal timestamps, the larger region id (a fixed, deterministic tiebreak).</li>
 * </ol>
 * {@link #write} stamps a new write with at least the overwritten write's timestamp plus one, so a writer whose
 * clock is behind still orders after what it saw. That makes the order above total and consistent with
 * causality, hence {@link #merge} a join: commutative, associative and idempotent.
 *
 * <p>What it loses, by design: of two concurrent writes, the earlier (then the smaller region's) is dropped. Use
 * {@link Siblings} where no write may be dropped silently.
 *
 * <p>Immutable. {@link #merge} returns one of its two inputs and allocates nothing.
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

    /** A register from its stored state; {@code version} must have seen a write of {@code region}. */
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
     * or any unit all writers share). The new write has seen this one: its vector is this one's plus one write of
     * {@code region}, and its timestamp is {@code max(timestamp, timestamp() + 1)}.
     */
    public LwwRegister<V> write(String region, V value, long timestamp) {
        Objects.requireNonNull(value, "value");
        long stamped = timestamp > this.timestamp ? timestamp : Math.addExact(this.timestamp, 1);
        return new LwwRegister<>(value, version.increment(region), stamped, region);
    }

    /**
     * The winner of the two states by the order in the class comment; no allocation. Commutative, associative and
     * idempotent for states made by {@link #initial} and {@link #write} with unique region ids.
     */
    public LwwRegister<V> merge(LwwRegister<V> other) {
        return winsOver(other) ? this : other;
    }

    /** Whether this state wins a merge with {@code other} (or is equal to it). */
    public boolean winsOver(LwwRegister<V> other) {
        if (other == this) {
            return true;
        }
        switch (version.compare(other.version)) {
            case AFTER:
                return true;
            case BEFORE:
                return false;
            default:
                // Concurrent (or equal: the same write): the later commit, then the larger region id.
                if (timestamp != other.timestamp) {
                    return timestamp > other.timestamp;
                }
                return region.compareTo(other.region) >= 0;
        }
    }

    /** The value of the winning write. */
    public V value() {
        return value;
    }

    /** The version vector of the winning write. */
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
