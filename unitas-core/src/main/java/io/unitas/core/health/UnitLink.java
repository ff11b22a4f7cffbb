package io.unitas.core.health;

import java.time.Instant;
import java.util.Objects;

import io.unitas.core.Region;

/**
 * How far one unit's changes written in {@code from} are behind in {@code to}, from both regions' own positions
 * ({@link UnitLinks}): what {@code from} has written minus what {@code to} has applied.
 *
 * @param unit       the unit
 * @param from       the region that wrote the changes (the origin)
 * @param to         the region that applies them (the target)
 * @param changes    how many of them {@code to} has not applied; exact when {@code exact}, else at most this many
 * @param lagMs      the age at {@code measuredAt} of the oldest of them, 0 when none; exact when {@code exact}, else
 *                   at most this (never less than the true lag, so a switchover never flips early on it)
 * @param exact      whether both figures are exact: false when {@code to} has applied part of the changes the origin
 *                   still keeps because another region has not (the origin reports only its oldest and newest)
 * @param measuredAt the older of the two regions' readings: the figures hold as of then
 */
public record UnitLink(String unit, Region from, Region to, long changes, long lagMs, boolean exact,
                       Instant measuredAt) {

    /** Requires every part, and figures of at least 0. */
    public UnitLink {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(measuredAt, "measuredAt");
        if (changes < 0 || lagMs < 0) {
            throw new IllegalArgumentException(unit + " " + from + "->" + to + ": changes " + changes + ", lag_ms "
                                               + lagMs + " (expected: both >= 0)");
        }
    }

    /** This link as the origin's per-unit lag to {@code to}, as a switchover reads it. */
    public UnitLag toUnitLag() {
        return new UnitLag(unit, to, lagMs, measuredAt, changes);
    }
}
