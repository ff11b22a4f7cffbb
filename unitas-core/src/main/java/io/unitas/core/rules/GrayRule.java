package io.unitas.core.rules;

import java.util.List;
import java.util.Objects;

/**
 * One blue-green (gray) rule of a unit (seed 004): when the request's header {@code when.header()} equals
 * {@code when.equals()}, the unit's services are called at {@code version}. A rule without a condition is the
 * unit's fallback route and comes last. A unit that moves to another region loses its gray rules, because the
 * other region need not run the same versions.
 *
 * @param when    the condition, or {@code null} for the fallback route
 * @param version the service version requests that match are sent to
 */
public record GrayRule(HeaderMatch when, String version) {

    /**
     * A header that must equal a value exactly.
     *
     * @param header the header's name, matched case-insensitively (kept in lowercase)
     * @param equals the value it must have
     */
    public record HeaderMatch(String header, String equals) {

        /** Both parts are required; the header name is kept in lowercase. */
        public HeaderMatch {
            if (header == null || header.isBlank()) {
                throw new IllegalArgumentException("header: '" + header + "' (expected: a non-blank name)");
            }
            Objects.requireNonNull(equals, "equals");
            header = header.toLowerCase(java.util.Locale.ROOT);
        }

        /** Whether {@code request} carries the header with exactly this value. */
        public boolean matches(RequestView request) {
            return equals.equals(request.header(header));
        }
    }

    /** Requires a non-blank version. */
    public GrayRule {
        if (version == null || version.isBlank()) {
            throw new IllegalArgumentException("version: '" + version + "' (expected: a non-blank version)");
        }
    }

    /** A conditional rule: header {@code header} equal to {@code value} selects {@code version}. */
    public static GrayRule when(String header, String value, String version) {
        return new GrayRule(new HeaderMatch(header, value), version);
    }

    /** The fallback route: every request that matched no earlier rule goes to {@code version}. */
    public static GrayRule otherwise(String version) {
        return new GrayRule(null, version);
    }

    /** Whether this is the unconditional fallback route. */
    public boolean isFallback() {
        return when == null;
    }

    /** Whether the rule applies to {@code request}. */
    public boolean matches(RequestView request) {
        return when == null || when.matches(request);
    }

    /** The version of the first rule of {@code rules} that applies to {@code request}, or {@code null}. */
    public static String select(List<GrayRule> rules, RequestView request) {
        for (int i = 0, n = rules.size(); i < n; i++) {
            GrayRule rule = rules.get(i);
            if (rule.matches(request)) {
                return rule.version;
            }
        }
        return null;
    }

    /** {@code header x-version == 1.1 -> 1.1} or {@code otherwise -> 1.0}. */
    @Override
    public String toString() {
        return (when == null ? "otherwise" : "header " + when.header + " == " + when.equals) + " -> " + version;
    }
}
