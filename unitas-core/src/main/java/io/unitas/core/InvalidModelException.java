package io.unitas.core;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A document (topology, rules, health) failed validation as a whole. Carries every problem found, not just
 * the first, so a user fixes them in one pass.
 */
public final class InvalidModelException extends IllegalArgumentException {

    private final transient List<Problem> problems;

    /** Creates the exception; {@code problems} must not be empty. */
    public InvalidModelException(List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("problems: [] (expected: at least one)");
        }
        this.problems = List.copyOf(problems);
    }

    /** Every problem, in document order. */
    public List<Problem> problems() {
        return problems;
    }
}
