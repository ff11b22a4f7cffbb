package io.unitas.config;

import java.util.List;

/**
 * A configuration file could not be read or is invalid. Each entry of {@link #problems()} is one line that names
 * the file, the line and the path inside the document: {@code rules.yaml:14: ranges[2]: 1500~2500 overlaps ...}.
 * Meant to be shown to a person as is, without a stack trace.
 */
public final class ConfigException extends RuntimeException {

    private final List<String> problems;

    /** One problem. */
    public ConfigException(String problem) {
        this(List.of(problem));
    }

    /** Several problems, shown one per line. */
    public ConfigException(List<String> problems) {
        super(String.join("\n", problems), null, false, false);
        this.problems = List.copyOf(problems);
    }

    /** Every problem, one line each. */
    public List<String> problems() {
        return problems;
    }
}
