package io.unitas.core.consistency;

/**
 * How fresh a read of a service or entity must be, as it declares: the three answers of seed 003's decision tree.
 */
public enum ConsistencyLevel {
    /** Every read sees the last acknowledged write: one writer per record, read at home (CP). */
    STRONG("strong"),
    /** A read may be older than the last write by at most a declared budget. */
    BOUNDED_STALENESS("bounded-staleness"),
    /** Replicas converge some time after writes stop, by a merge policy or by idempotent retries (AP). */
    EVENTUAL("eventual");

    private final String label;

    ConsistencyLevel(String label) {
        this.label = label;
    }

    /** The name used in files ({@code strong}, {@code bounded-staleness}, {@code eventual}). */
    public String label() {
        return label;
    }

    /** The level named {@code label}, or {@code null} when there is none. */
    public static ConsistencyLevel ofLabel(String label) {
        for (ConsistencyLevel l : values()) {
            if (l.label.equals(label)) {
                return l;
            }
        }
        return null;
    }
}
