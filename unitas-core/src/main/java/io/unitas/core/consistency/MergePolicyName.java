package io.unitas.core.consistency;

/**
 * The merge policies a declaration may name for data whose replicas can diverge: how two versions written in
 * different regions become one. Only the names; the policies themselves are CRDTs of the core.
 */
public enum MergePolicyName {
    /** Last writer wins, by timestamp and then region. */
    LWW("lww"),
    /** A counter of increments and decrements per region. */
    PN_COUNTER("pn-counter"),
    /** A set in which an add seen by no remove wins. */
    OR_SET("or-set"),
    /** A map of keys to merged values, with observed-remove keys. */
    OR_MAP("or-map"),
    /** Concurrent versions are all kept, for the application to resolve. */
    SIBLINGS("siblings");

    private final String label;

    MergePolicyName(String label) {
        this.label = label;
    }

    /** The name used in files ({@code lww}, {@code pn-counter}, {@code or-set}, {@code or-map}, {@code siblings}). */
    public String label() {
        return label;
    }

    /** The policy named {@code label}, or {@code null} when there is none. */
    public static MergePolicyName ofLabel(String label) {
        for (MergePolicyName m : values()) {
            if (m.label.equals(label)) {
                return m;
            }
        }
        return null;
    }
}
