package io.unitas.core.crdt;

import java.util.Map;

/**
 * A counter that every region may increment and decrement at once without losing a step (a PN-counter): each
 * replica counts its own increments and its own decrements, and the value is all increments minus all
 * decrements. Merge takes, per replica, the larger of the two counts seen, so an increment made anywhere counts
 * exactly once however often and in whatever order states are exchanged.
 *
 * <p>Immutable. {@link #merge} decides without allocating and returns one of the two states when it has already
 * seen every step of the other (the common case when replication is in order); only truly concurrent states
 * produce a new one. Replica ids must be unique per writer, as for {@link OrSet}.
 */
public final class PnCounter {

    private static final PnCounter ZERO = new PnCounter(VersionVector.empty(), VersionVector.empty());

    // Per replica, the total of its increments (resp. decrements): both only grow, so their join is a join.
    private final VersionVector increments;
    private final VersionVector decrements;

    private PnCounter(VersionVector increments, VersionVector decrements) {
        this.increments = increments;
        this.decrements = decrements;
    }

    /** The counter no replica has changed: value 0. */
    public static PnCounter zero() {
        return ZERO;
    }

    /** A counter from its stored state: per replica, the total of its increments and of its decrements. */
    public static PnCounter of(Map<String, Long> increments, Map<String, Long> decrements) {
        return new PnCounter(VersionVector.of(increments), VersionVector.of(decrements));
    }

    /** All increments minus all decrements. */
    public long value() {
        return Math.subtractExact(increments.total(), decrements.total());
    }

    /** This counter after {@code replica} adds {@code amount} (negative to subtract; 0 is refused). */
    public PnCounter add(String replica, long amount) {
        if (amount == 0) {
            throw new IllegalArgumentException("amount of " + replica + ": 0 (expected: non-zero)");
        }
        if (amount > 0) {
            return new PnCounter(step(increments, replica, amount), decrements);
        }
        if (amount == Long.MIN_VALUE) {
            throw new IllegalArgumentException("amount of " + replica + ": " + amount + " (expected: > " + amount + ")");
        }
        return new PnCounter(increments, step(decrements, replica, -amount));
    }

    /**
     * Every step either state has seen. Commutative, associative and idempotent; returns {@code this} or
     * {@code other} without allocating when one has seen all of the other's steps.
     */
    public PnCounter merge(PnCounter other) {
        Causality up = increments.compare(other.increments);
        Causality down = decrements.compare(other.decrements);
        if (atLeast(up) && atLeast(down)) {
            return this;
        }
        if (atMost(up) && atMost(down)) {
            return other;
        }
        return new PnCounter(increments.merge(other.increments), decrements.merge(other.decrements));
    }

    /** Per replica, the total it has added. */
    public Map<String, Long> increments() {
        return increments.counters();
    }

    /** Per replica, the total it has subtracted (as a positive number). */
    public Map<String, Long> decrements() {
        return decrements.counters();
    }

    private static VersionVector step(VersionVector totals, String replica, long amount) {
        return totals.with(new Dot(replica, Math.addExact(totals.get(replica), amount)));
    }

    private static boolean atLeast(Causality c) {
        return c == Causality.AFTER || c == Causality.EQUAL;
    }

    private static boolean atMost(Causality c) {
        return c == Causality.BEFORE || c == Causality.EQUAL;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PnCounter c && increments.equals(c.increments) && decrements.equals(c.decrements);
    }

    @Override
    public int hashCode() {
        return increments.hashCode() * 31 + decrements.hashCode();
    }

    @Override
    public String toString() {
        return "PnCounter{" + value() + ", +" + increments + ", -" + decrements + '}';
    }
}
