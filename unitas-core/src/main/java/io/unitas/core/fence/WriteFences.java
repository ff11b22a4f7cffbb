package io.unitas.core.fence;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * An immutable snapshot of the fenced units and of the HTTP methods that count as writes. A request passes
 * unless its method is a write and its unit is fenced; {@link #fenceFor} answers without allocating.
 */
public final class WriteFences {

    /** The methods that count as writes unless configured otherwise. */
    public static final Set<String> DEFAULT_WRITE_METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");

    private static final WriteFences NONE = new WriteFences(Map.of(), DEFAULT_WRITE_METHODS);

    private final Map<String, FencePolicy> byUnit;
    private final Set<String> writeMethods;

    private WriteFences(Map<String, FencePolicy> byUnit, Set<String> writeMethods) {
        this.byUnit = byUnit;
        this.writeMethods = writeMethods;
    }

    /** No unit fenced; the default write methods. */
    public static WriteFences none() {
        return NONE;
    }

    /**
     * Fences by unit id, with the given write methods (upper-cased; an empty set is refused, since a fence
     * that fences nothing is a configuration mistake).
     */
    public static WriteFences of(Map<String, FencePolicy> byUnit, Set<String> writeMethods) {
        Objects.requireNonNull(byUnit, "byUnit");
        Set<String> methods = new TreeSet<>();
        for (String m : writeMethods) {
            methods.add(m.toUpperCase(Locale.ROOT));
        }
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("write_methods: [] (expected: at least one method, e.g. POST)");
        }
        return new WriteFences(Map.copyOf(byUnit), Set.copyOf(methods));
    }

    /** Fences by unit id with the default write methods. */
    public static WriteFences of(Map<String, FencePolicy> byUnit) {
        return of(byUnit, DEFAULT_WRITE_METHODS);
    }

    /** The fence a request of {@code unit} with {@code method} meets, or {@code null} when it passes. */
    public FencePolicy fenceFor(String unit, String method) {
        if (byUnit.isEmpty() || !writeMethods.contains(method)) {
            return null;
        }
        return byUnit.get(unit);
    }

    /** Whether {@code method} (upper case, as on the wire) counts as a write. */
    public boolean isWrite(String method) {
        return writeMethods.contains(method);
    }

    /** The fenced units and their fences. */
    public Map<String, FencePolicy> fences() {
        return byUnit;
    }

    /** The methods that count as writes. */
    public Set<String> writeMethods() {
        return writeMethods;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WriteFences other && byUnit.equals(other.byUnit) && writeMethods.equals(other.writeMethods);
    }

    @Override
    public int hashCode() {
        return byUnit.hashCode() * 31 + writeMethods.hashCode();
    }

    @Override
    public String toString() {
        return "WriteFences{" + byUnit + ", writes=" + new TreeSet<>(writeMethods) + '}';
    }
}
