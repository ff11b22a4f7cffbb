package io.unitas.core.rules;

import java.util.Objects;

import io.unitas.core.Region;

/**
 * The outcome of looking a request up in a rule set: its unit and that unit's home region, with the key and the
 * source it came from; or the center region for a request without a key; or why the request has no unit. A value
 * the caller branches on ({@link #outcome()}), never an exception.
 */
public final class UnitLookup {

    /** Why a request has, or has no, unit. */
    public enum Outcome {
        /** A key source yielded a key in a unit's range (or a domain prefix or strategy named a unit). */
        UNIT("unit"),
        /** No source yielded a key and the rule set says {@code missing: center}: the center region serves. */
        CENTER("center"),
        /** No source yielded a key and the rule set says {@code missing: reject}. */
        MISSING_KEY("missing_key"),
        /** The first key found cannot be transformed (a non-numeric key under {@code none} or {@code mod N}). */
        BAD_KEY("bad_key"),
        /** The transformed key lies in no range (only possible under transform {@code none}). */
        OUT_OF_RANGE("out_of_range"),
        /** A custom strategy named a unit the rule set does not have. */
        UNKNOWN_UNIT("unknown_unit"),
        /** A routing key given more than once, or by two sources with different values. */
        AMBIGUOUS_KEY("ambiguous_key");

        private final String reason;

        Outcome(String reason) {
            this.reason = reason;
        }

        /** The lowercase name used in output and metrics ({@code unit}, {@code missing_key}). */
        public String reason() {
            return reason;
        }
    }

    private final Outcome outcome;
    private final Unit unit;
    private final Region region;
    private final KeySource source;
    private final String key;
    private final long transformedKey;
    private final KeySource otherSource;
    private final String otherKey;

    UnitLookup(Outcome outcome, Unit unit, Region region, KeySource source, String key, long transformedKey) {
        this(outcome, unit, region, source, key, transformedKey, null, null);
    }

    private UnitLookup(Outcome outcome, Unit unit, Region region, KeySource source, String key, long transformedKey,
                       KeySource otherSource, String otherKey) {
        this.outcome = outcome;
        this.unit = unit;
        this.region = region;
        this.source = source;
        this.key = key;
        this.transformedKey = transformedKey;
        this.otherSource = otherSource;
        this.otherKey = otherKey;
    }

    /**
     * A key given more than once by {@code source} ({@code other} null), or {@code key} from {@code source} and a
     * different {@code otherKey} from {@code other}.
     */
    static UnitLookup ambiguous(KeySource source, String key, KeySource other, String otherKey) {
        return new UnitLookup(Outcome.AMBIGUOUS_KEY, null, null, source, key, -1, other, otherKey);
    }

    /** Why the request has, or has no, unit. */
    public Outcome outcome() {
        return outcome;
    }

    /** Whether the lookup names a region to route to ({@link Outcome#UNIT} or {@link Outcome#CENTER}). */
    public boolean hasRegion() {
        return region != null;
    }

    /** The request's unit, or {@code null} unless the outcome is {@link Outcome#UNIT}. */
    public Unit unit() {
        return unit;
    }

    /** The home region to route to (the unit's, or the center), or {@code null} when {@link #hasRegion()} is false. */
    public Region region() {
        return region;
    }

    /** The source the key came from, or {@code null} when no source yielded one. */
    public KeySource source() {
        return source;
    }

    /**
     * The key as found (header value, domain prefix, or the unit id a strategy named), or {@code null} when no source
     * yielded one.
     */
    public String key() {
        return key;
    }

    /** The key after the transform, or {@code -1} when it was not transformed (domain prefix, strategy, bad key). */
    public long transformedKey() {
        return transformedKey;
    }

    /**
     * For {@link Outcome#AMBIGUOUS_KEY}, the second source whose key differs from {@link #key()}; {@code null} when
     * the one source {@link #source()} was given more than once, and for every other outcome.
     */
    public KeySource otherSource() {
        return otherSource;
    }

    /** For {@link Outcome#AMBIGUOUS_KEY}, the key {@link #otherSource()} yielded; otherwise {@code null}. */
    public String otherKey() {
        return otherKey;
    }

    /** One line for a person, naming the key, its source, the unit and the region. */
    public String message() {
        return switch (outcome) {
            case UNIT -> "unit " + unit.id() + " in region " + region + " (key '" + key + "' from " + source
                         + (transformedKey >= 0 ? ", transformed " + transformedKey : "") + ")";
            case CENTER -> "no routing key; center region " + region;
            case MISSING_KEY -> "no routing key in the request";
            case BAD_KEY -> "bad key '" + key + "' from " + source;
            case OUT_OF_RANGE -> "key '" + key + "' from " + source + " (transformed " + transformedKey
                                 + ") is in no range";
            case UNKNOWN_UNIT -> "strategy " + source.name() + " named unknown unit '" + key + "'";
            case AMBIGUOUS_KEY -> otherSource == null
                    ? "routing key " + source + " given more than once (expected: once)"
                    : "routing keys disagree: '" + key + "' from " + source + " and '" + otherKey + "' from "
                      + otherSource + " (expected: one key, or the same key from each source)";
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UnitLookup l && outcome == l.outcome && transformedKey == l.transformedKey
               && Objects.equals(unit, l.unit) && Objects.equals(region, l.region)
               && Objects.equals(source, l.source) && Objects.equals(key, l.key)
               && Objects.equals(otherSource, l.otherSource) && Objects.equals(otherKey, l.otherKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, unit, region, source, key, transformedKey, otherSource, otherKey);
    }

    @Override
    public String toString() {
        return message();
    }
}
