package io.unitas.core.consistency;

import java.util.Objects;

/**
 * A contract that cannot be checked because it is wrong in itself or names something that does not exist (a
 * residency group nobody declared, a unit the rules lack): bad input, not a violation.
 *
 * @param where   where it is written
 * @param message what is wrong and what was expected
 */
public record ContractProblem(Location where, String message) {

    /** Requires both parts. */
    public ContractProblem {
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(message, "message");
    }

    /** {@code file:line: path: message}. */
    @Override
    public String toString() {
        return where + ": " + message;
    }
}
