package io.unitas.core.consistency;

import io.unitas.core.ServiceKind;

/** Where a service or entity takes writes. */
public enum WriteScope {
    /** Only in the home region of the record's unit: one writer per unit. */
    HOME("home"),
    /** Only in the topology's center region. */
    CENTER("center"),
    /** In whichever region serves the request: several writers, so concurrent versions must be merged. */
    ANY("any");

    private final String label;

    WriteScope(String label) {
        this.label = label;
    }

    /** The name used in files ({@code home}, {@code center}, {@code any}). */
    public String label() {
        return label;
    }

    /** The scope named {@code label}, or {@code null} when there is none. */
    public static WriteScope ofLabel(String label) {
        for (WriteScope w : values()) {
            if (w.label.equals(label)) {
                return w;
            }
        }
        return null;
    }

    /** Where a service of {@code kind} writes when it does not say: core at home, global and shared in the center. */
    public static WriteScope defaultFor(ServiceKind kind) {
        return kind == ServiceKind.CORE ? HOME : CENTER;
    }
}
