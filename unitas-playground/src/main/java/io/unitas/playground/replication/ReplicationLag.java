package io.unitas.playground.replication;

import io.unitas.core.Region;

/** How far one region's copy of another's data is behind, as measured now; a {@link Replicator} is one. */
@FunctionalInterface
public interface ReplicationLag {

    /** Milliseconds that {@code to} is behind {@code from}, 0 when caught up. */
    long lagMillis(Region from, Region to);
}
