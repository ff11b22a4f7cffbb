package io.unitas.core.health;

import java.util.Locale;

/** What a failing check closes: the whole region, only its writes, or nothing (reported only). */
public enum Gate {
    /** A failing check makes the region unhealthy (and so not writable): the router moves its users away. */
    HEALTHY,
    /** A failing check makes the region not writable, but it still serves. */
    WRITABLE,
    /** The check is reported and measured but decides nothing; calculated checks may still read it. */
    NONE;

    /** The lowercase name used in files ({@code healthy}, {@code writable}, {@code none}). */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
