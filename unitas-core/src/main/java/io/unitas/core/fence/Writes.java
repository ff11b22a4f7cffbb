package io.unitas.core.fence;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which requests count as writes, the ones a write fence stops: those whose method is one of {@code methods},
 * unless their path is one of {@code readPaths}. The exception is for protocols that read with POST: every gRPC
 * call is a POST ({@code /acme.orders.v1.Orders/Get*}), as is many a GraphQL query.
 *
 * @param methods   the methods that write (upper case)
 * @param readPaths paths that only read whatever their method: each exact, or a prefix when it ends in {@code *}
 */
public record Writes(Set<String> methods, List<String> readPaths) {

    /** The methods that count as writes unless configured otherwise. */
    public static final Set<String> DEFAULT_METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");

    /** POST, PUT, PATCH and DELETE, no read paths. */
    public static final Writes DEFAULT = new Writes(DEFAULT_METHODS, List.of());

    /** Upper-cases the methods and checks both lists, naming the setting each comes from. */
    public Writes {
        Objects.requireNonNull(methods, "methods");
        Set<String> upper = new TreeSet<>();
        methods.forEach(m -> upper.add(m.toUpperCase(Locale.ROOT)));
        if (upper.isEmpty()) {
            throw new IllegalArgumentException("write_methods: [] (expected: at least one method, e.g. POST)");
        }
        methods = Set.copyOf(upper);
        for (String p : readPaths) {
            String problem = readPathProblem(p);
            if (problem != null) {
                throw new IllegalArgumentException("read_paths: '" + p + "' (" + problem + ")");
            }
        }
        readPaths = List.copyOf(readPaths);
    }

    /** What is wrong with {@code readPath} as a read path, or {@code null} when nothing is. */
    public static String readPathProblem(String readPath) {
        int star = readPath.indexOf('*');
        return readPath.startsWith("/") && (star < 0 || star == readPath.length() - 1)
               ? null : "expected: a path starting with /, with * only at its end";
    }

    /** Whether a {@code method} request of {@code path} (no query) writes. */
    public boolean isWrite(String method, String path) {
        if (!methods.contains(method)) {
            return false;
        }
        for (String p : readPaths) {
            if (p.endsWith("*") ? path.regionMatches(0, p, 0, p.length() - 1) : path.equals(p)) {
                return false;
            }
        }
        return true;
    }
}
