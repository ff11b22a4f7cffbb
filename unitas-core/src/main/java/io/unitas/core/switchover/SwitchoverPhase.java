package io.unitas.core.switchover;

import java.util.Locale;

/** Where a switchover stands. Each phase is persisted before its effects are visible. */
public enum SwitchoverPhase {
    /** Accepted; the moving units are about to be fenced. */
    FENCING,
    /** Writes of the moving units are fenced; waiting for the target's replication lag to fall to max_lag. */
    CATCHING_UP,
    /** The units' home is now the target and their gray rules are gone; the fences are about to be lifted. */
    FLIPPED,
    /** Done: units moved and unfenced. */
    COMPLETED,
    /** The deadline passed before the target caught up: fences lifted, old mapping kept. */
    ROLLED_BACK,
    /** An operator aborted before the flip: fences lifted, old mapping kept. */
    ABORTED;

    /** Whether the switchover has ended (nothing more will happen to it). */
    public boolean terminal() {
        return this == COMPLETED || this == ROLLED_BACK || this == ABORTED;
    }

    /** Whether the moving units are fenced in this phase. */
    public boolean fenced() {
        return this == CATCHING_UP || this == FLIPPED;
    }

    /** The lowercase name used in JSON ({@code catching_up}). */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The phase named {@code name} in JSON, as {@link #jsonName()} writes it. */
    public static SwitchoverPhase fromJson(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
