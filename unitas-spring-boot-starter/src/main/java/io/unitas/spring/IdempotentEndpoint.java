package io.unitas.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.convert.DurationStyle;

/**
 * One idempotent endpoint's settings: {@link Idempotent}'s attributes over {@code unitas.idempotency.*}'s defaults.
 *
 * @param header        the header carrying the key
 * @param ttl           how long its records count
 * @param ownerVariable the path variable naming the owner, or {@code null} for the request's routing key
 */
record IdempotentEndpoint(String header, Duration ttl, String ownerVariable) {

    /** The defaults, for {@code unitas.idempotency.paths}. */
    static IdempotentEndpoint defaults(UnitasProperties.Idempotency settings) {
        return new IdempotentEndpoint(settings.getHeader(), settings.getTtl(), null);
    }

    /**
     * {@code annotation}'s settings on {@code method}, whose mapping's path patterns are {@code patterns} ({@code null}
     * once checked at start); an {@link IllegalArgumentException} naming the method and the attribute when one is
     * wrong.
     */
    static IdempotentEndpoint of(Idempotent annotation, Method method, Set<String> patterns,
                                 UnitasProperties.Idempotency settings) {
        String where = "@Idempotent on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
        String header = annotation.header().isEmpty() ? settings.getHeader() : annotation.header();
        String problem = io.unitas.client.RoutingHeaders.nameProblem(header);
        if (problem != null) {
            throw new IllegalArgumentException(where + ": header '" + header + "' (" + problem + ")");
        }
        Duration ttl = settings.getTtl();
        if (!annotation.retention().isEmpty()) {
            try {
                ttl = DurationStyle.detectAndParse(annotation.retention());
            } catch (IllegalArgumentException e) {
                ttl = null;
            }
            if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException(where + ": retention '" + annotation.retention()
                                                   + "' (expected: a positive duration, e.g. 48h)");
            }
        }
        String owner = annotation.owner();
        String variable = null;
        if (!owner.isEmpty()) {
            if (!owner.matches("\\{[A-Za-z_][A-Za-z0-9_]*}")) {
                throw new IllegalArgumentException(where + ": owner '" + owner
                                                   + "' (expected: a path variable, e.g. \"{userId}\")");
            }
            variable = owner.substring(1, owner.length() - 1);
            String name = variable;
            if (patterns != null
                && patterns.stream().noneMatch(p -> p.contains("{" + name + "}") || p.contains("{" + name + ":"))) {
                throw new IllegalArgumentException(where + ": owner '" + owner + "' is no path variable of "
                                                   + patterns + " (expected: one of its {variables})");
            }
        }
        return new IdempotentEndpoint(header, ttl, variable);
    }

    /** The owner among the request's path variables ({@code null} when absent), for an owner variable. */
    String owner(Map<String, String> pathVariables) {
        return pathVariables == null ? null : pathVariables.get(ownerVariable);
    }
}
