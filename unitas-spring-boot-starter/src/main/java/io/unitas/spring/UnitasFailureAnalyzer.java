package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationPropertiesBindException;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.validation.FieldError;

/**
 * Turns a failed start caused by wrong {@code unitas.*} settings into one line per problem, each naming the property
 * (or the file and line) and what was expected, instead of a wall of stack trace.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class UnitasFailureAnalyzer implements FailureAnalyzer {

    private static final String ACTION = "Fix the unitas.* settings in application.yaml (or the files they name); "
                                         + "docs/spring.md lists them.";

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        List<String> problems = problems(failure);
        if (problems == null) {
            return null;
        }
        StringBuilder description = new StringBuilder("The unitas settings are wrong:\n");
        problems.forEach(p -> description.append("    ").append(p).append('\n'));
        return new FailureAnalysis(description.toString(), ACTION, failure);
    }

    private static List<String> problems(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UnitasConfigurationException bad) {
                return bad.problems();
            }
            if (t instanceof ConfigurationPropertiesBindException bind
                && (UnitasProperties.class.equals(bind.getBeanType())
                    || UnitasReplicationProperties.class.equals(bind.getBeanType()))) {
                BindValidationException validation = find(bind, BindValidationException.class);
                if (validation == null) {
                    return List.of(bindProblem(bind));
                }
                List<String> problems = new ArrayList<>();
                validation.getValidationErrors().forEach(error -> problems.add(error instanceof FieldError field
                        ? "unitas." + kebab(field.getField()) + ": " + field.getDefaultMessage()
                        : "unitas: " + error.getDefaultMessage()));
                return problems;
            }
        }
        return null;
    }

    /**
     * A field path as the user writes it in application.yaml: {@code homeReads.tlsCert} as
     * {@code home-reads.tls-cert}; a map key in brackets stays as written.
     */
    static String kebab(String field) {
        StringBuilder out = new StringBuilder(field.length() + 8);
        boolean key = false;
        for (char c : field.toCharArray()) {
            key = c == '[' || key && c != ']';
            if (!key && Character.isUpperCase(c)) {
                out.append('-').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** {@code property: value (expected: type)} for a value that does not convert, else the root cause's message. */
    private static String bindProblem(ConfigurationPropertiesBindException bind) {
        org.springframework.boot.context.properties.bind.BindException cause =
                find(bind, org.springframework.boot.context.properties.bind.BindException.class);
        if (cause != null && cause.getProperty() != null) {
            return cause.getProperty().getName() + ": '" + cause.getProperty().getValue() + "' (expected: "
                   + cause.getTarget().getType() + ")";
        }
        return "unitas: " + rootMessage(bind);
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
