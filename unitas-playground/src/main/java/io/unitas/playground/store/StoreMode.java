package io.unitas.playground.store;

/** What a regional store accepts right now; switching it is how drills inject the seed's faults. */
public enum StoreMode {
    /** Reads and writes. */
    READ_WRITE,
    /** Reads only: writes answer {@link StoreResult.Status#READ_ONLY}; replication still applies and ships. */
    READ_ONLY,
    /** Nothing: every call answers {@link StoreResult.Status#UNAVAILABLE}, as an unreachable database would. */
    UNAVAILABLE
}
