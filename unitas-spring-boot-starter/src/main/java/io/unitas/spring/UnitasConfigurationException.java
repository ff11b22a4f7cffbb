package io.unitas.spring;

import java.util.List;

/** The {@code unitas.*} settings or the files they name are wrong; each problem names the property or file line. */
final class UnitasConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    UnitasConfigurationException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    List<String> problems() {
        return problems;
    }
}
