package io.unitas.core.consistency;

import java.util.Objects;

/**
 * One broken rule: which, where, and what was declared against what was expected.
 *
 * @param rule    the rule
 * @param where   the file, line and path that break it
 * @param message what is wrong, in one line
 */
public record Violation(Rule rule, Location where, String message) {

    /** Requires every part. */
    public Violation {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(message, "message");
    }

    /** {@code file:line: path: message [rule-id]}, one line for a person. */
    @Override
    public String toString() {
        return where + ": " + message + " [" + rule.id() + "]";
    }
}
