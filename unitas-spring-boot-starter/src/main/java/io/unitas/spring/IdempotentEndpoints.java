package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.util.AntPathMatcher;
import org.springframework.web.method.HandlerMethod;

/**
 * The check at start: every {@link Idempotent} method's attributes are valid, and an application that has idempotent
 * endpoints (annotated, or {@code unitas.idempotency.paths}) has an idempotency that can serve them. Otherwise the
 * start stops with one line per problem, naming the method or the property.
 */
final class IdempotentEndpoints {

    private IdempotentEndpoints() {}

    /** Checks {@code handlers} (each with its mapping's path patterns); throws the problems found. */
    static void check(IdempotencySetup setup, UnitasProperties.Idempotency settings,
                      Map<HandlerMethod, Set<String>> handlers) {
        List<String> problems = new ArrayList<>();
        List<String> annotated = new ArrayList<>();
        handlers.forEach((handler, patterns) -> {
            try {
                IdempotencyConfiguration.endpoint(handler, patterns, settings).ifPresent(e -> annotated.add(
                        handler.getBeanType().getSimpleName() + "." + handler.getMethod().getName()));
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        });
        for (String pattern : settings.getPaths()) {
            if (!new AntPathMatcher().isPattern(pattern) && !pattern.startsWith("/")) {
                problems.add("unitas.idempotency.paths: '" + pattern + "' (expected: a path pattern, e.g. /orders/**)");
            }
        }
        if (setup.problem() != null && (!annotated.isEmpty() || !settings.getPaths().isEmpty())) {
            String users = annotated.isEmpty() ? "unitas.idempotency.paths " + settings.getPaths()
                                               : "@Idempotent on " + String.join(", ", annotated);
            problems.add(setup.problem() + "; needed by " + users);
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
    }
}
