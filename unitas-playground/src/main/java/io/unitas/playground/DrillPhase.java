package io.unitas.playground;

/**
 * Where a running drill is, in order; reported to {@link Drill.Builder#phases} as the drill moves on, so that a
 * display can follow it without parsing its progress lines.
 */
public enum DrillPhase {

    /** The virtual users run; nothing is broken yet. */
    LOAD("load"),
    /** The faulted region's outgoing replication is paused: a backlog builds before a store fault. */
    BACKLOG("backlog"),
    /** The fault is in place. */
    FAULT("fault"),
    /** The fault is undone; the load goes on. */
    RECOVERED("recovered"),
    /** The load has stopped; waiting for every replication link to catch up before counting. */
    REPLICATION("replication"),
    /** Counted: the result is ready. */
    DONE("done");

    private final String label;

    DrillPhase(String label) {
        this.label = label;
    }

    /** A short lower-case name for a status line. */
    public String label() {
        return label;
    }
}
