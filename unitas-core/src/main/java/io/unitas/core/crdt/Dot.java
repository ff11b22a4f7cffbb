package io.unitas.core.crdt;

import java.util.Objects;

/**
 * One event: the {@code counter}-th write made by {@code replica}. An {@link OrSet} tags every add with a fresh dot
 * so that a remove can name exactly the adds it observed.
 *
 * @param replica the id of the replica (a region, or a finer id) that made the write
 * @param counter its position among that replica's writes, from 1
 */
public record Dot(String replica, long counter) {

    /** Validates both parts. */
    public Dot {
        Objects.requireNonNull(replica, "replica");
        if (replica.isEmpty()) {
            throw new IllegalArgumentException("replica: '' (expected: a non-empty id)");
        }
        if (counter < 1) {
            throw new IllegalArgumentException("counter: " + counter + " (expected: >= 1)");
        }
    }

    @Override
    public String toString() {
        return replica + ":" + counter;
    }
}
