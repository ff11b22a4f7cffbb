package io.unitas.spring;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.unitas.core.rules.KeySource;

/**
 * Which path key sources of the unit rules ({@code {path: /wallets/{userId}}}) none of a service's request mappings
 * can carry: a mapping carries a pattern when it starts with the pattern's segments, the same literal segments and a
 * variable where the key is ({@code /wallets/{id}/deposits} carries {@code /wallets/{userId}}). Requests of such a
 * service never get their routing key from that path.
 */
final class PathKeySources {

    private PathKeySources() {}

    /** The path patterns of {@code sources} that no pattern of {@code mappings} carries, in their order. */
    static List<String> uncarried(List<KeySource> sources, Collection<String> mappings) {
        List<String> uncarried = new ArrayList<>();
        for (KeySource source : sources) {
            if (source.kind() == KeySource.Kind.PATH
                && mappings.stream().noneMatch(mapping -> carries(mapping, source.name()))) {
                uncarried.add(source.name());
            }
        }
        return uncarried;
    }

    /** Whether request mapping {@code mapping} starts with the segments of key pattern {@code pattern}. */
    static boolean carries(String mapping, String pattern) {
        String[] m = segments(mapping);
        String[] p = segments(pattern);
        if (m.length < p.length) {
            return false;
        }
        for (int i = 0; i < p.length; i++) {
            boolean keyHere = variable(p[i]);
            if (keyHere ? !(variable(m[i]) || wildcard(m[i])) : !(p[i].equals(m[i]) || variable(m[i])
                                                                 || wildcard(m[i]))) {
                return false;
            }
        }
        return true;
    }

    private static String[] segments(String path) {
        String trimmed = path.startsWith("/") ? path.substring(1) : path;
        return trimmed.isEmpty() ? new String[0] : trimmed.split("/", -1);
    }

    private static boolean variable(String segment) {
        return segment.startsWith("{") && segment.endsWith("}");
    }

    private static boolean wildcard(String segment) {
        return segment.equals("*") || segment.equals("**");
    }
}
