package io.unitas.core.rules;

/** What a lookup does when no key source yields a key. */
public enum MissingKeyAction {
    /** Refuse the request: it cannot be placed in a unit. */
    REJECT("reject"),
    /** Send the request to the topology's center region, which hosts the global services. */
    CENTER("center");

    private final String label;

    MissingKeyAction(String label) {
        this.label = label;
    }

    /** The name used in rules files ({@code reject}, {@code center}). */
    public String label() {
        return label;
    }

    /** The action named {@code label}, or {@code null} when there is none. */
    public static MissingKeyAction ofLabel(String label) {
        for (MissingKeyAction a : values()) {
            if (a.label.equals(label)) {
                return a;
            }
        }
        return null;
    }
}
