package io.unitas.core.rules;

import java.util.Locale;
import java.util.Objects;

/**
 * Where a request's routing key comes from. A rule set lists its sources in priority order; the first that yields a
 * key decides.
 *
 * @param kind what part of the request is read
 * @param name the header, cookie, query parameter or strategy name, or the path pattern ({@code /wallets/{userId}});
 *             empty for {@link Kind#DOMAIN_PREFIX}
 */
public record KeySource(Kind kind, String name) {

    /** The part of a request a key source reads. */
    public enum Kind {
        /** An HTTP header; names match case-insensitively. */
        HEADER("header"),
        /** A cookie. */
        COOKIE("cookie"),
        /** A query parameter. */
        QUERY("query"),
        /** A segment of the request's path, named by a pattern such as {@code /wallets/{userId}}. */
        PATH("path"),
        /** The first label of the host ({@code shanghai} of {@code shanghai.example.com}), mapped to a unit. */
        DOMAIN_PREFIX("domain-prefix"),
        /** A custom {@link UnitStrategy}, by name, that names the unit itself. */
        STRATEGY("strategy");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** The name used in rules files and messages ({@code header}, {@code domain-prefix}). */
        public String label() {
            return label;
        }

        /** Whether keys from this kind of source go through the transform and the ranges (and must agree). */
        public boolean usesRanges() {
            return this == HEADER || this == COOKIE || this == QUERY || this == PATH;
        }
    }

    /** Validates the pair; header names are kept in lowercase. */
    public KeySource {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        if (kind == Kind.DOMAIN_PREFIX ? !name.isEmpty() : name.isBlank()) {
            throw new IllegalArgumentException(kind.label + ": '" + name + "' (expected: "
                    + (kind == Kind.DOMAIN_PREFIX ? "no name" : "a non-blank name") + ")");
        }
        if (kind == Kind.HEADER) {
            name = name.toLowerCase(Locale.ROOT);
        }
        if (kind == Kind.PATH) {
            PathPattern.parse(name);
        }
    }

    /** The key is the value of header {@code name}. */
    public static KeySource header(String name) {
        return new KeySource(Kind.HEADER, name);
    }

    /** The key is the value of cookie {@code name}. */
    public static KeySource cookie(String name) {
        return new KeySource(Kind.COOKIE, name);
    }

    /** The key is the value of query parameter {@code name}. */
    public static KeySource query(String name) {
        return new KeySource(Kind.QUERY, name);
    }

    /**
     * The key is the segment of the request's path that {@code pattern}'s one variable stands for:
     * {@code path("/wallets/{userId}")} reads {@code 42} from {@code /wallets/42} and {@code /wallets/42/deposits}.
     *
     * @throws IllegalArgumentException when the pattern does not start with {@code /}, has an empty segment, or has
     *                                  not exactly one whole {@code {variable}} segment
     */
    public static KeySource path(String pattern) {
        return new KeySource(Kind.PATH, pattern);
    }

    /** The host's first label, looked up in the rule set's domain map. */
    public static KeySource domainPrefix() {
        return new KeySource(Kind.DOMAIN_PREFIX, "");
    }

    /** The installed {@link UnitStrategy} named {@code name}. */
    public static KeySource strategy(String name) {
        return new KeySource(Kind.STRATEGY, name);
    }

    /**
     * The raw key of a header, cookie or query source in {@code request}; {@code null} for other kinds (a path
     * source's key is read through its compiled pattern, {@link PathPattern#match}).
     */
    String read(RequestView request) {
        return switch (kind) {
            case HEADER -> request.header(name);
            case COOKIE -> request.cookie(name);
            case QUERY -> request.query(name);
            case PATH, DOMAIN_PREFIX, STRATEGY -> null;
        };
    }

    /** {@code header x-user-id}, {@code domain-prefix}: as in messages. */
    @Override
    public String toString() {
        return name.isEmpty() ? kind.label : kind.label + " " + name;
    }
}
