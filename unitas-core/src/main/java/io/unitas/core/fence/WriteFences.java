package io.unitas.core.fence;

import java.util.Map;
import java.util.Objects;

/**
 * An immutable snapshot of the fenced units and of which requests count as writes ({@link Writes}). A request
 * passes unless it writes and its unit is fenced; {@link #fenceFor} answers without allocating.
 */
public final class WriteFences {

    private static final WriteFences NONE = new WriteFences(Map.of(), Writes.DEFAULT);

    private final Map<String, FencePolicy> byUnit;
    private final Writes writes;

    private WriteFences(Map<String, FencePolicy> byUnit, Writes writes) {
        this.byUnit = byUnit;
        this.writes = writes;
    }

    /** No unit fenced; the default writes. */
    public static WriteFences none() {
        return NONE;
    }

    /** Fences by unit id, stopping {@code writes}. */
    public static WriteFences of(Map<String, FencePolicy> byUnit, Writes writes) {
        return new WriteFences(Map.copyOf(byUnit), Objects.requireNonNull(writes, "writes"));
    }

    /** Fences by unit id, stopping the default writes. */
    public static WriteFences of(Map<String, FencePolicy> byUnit) {
        return of(byUnit, Writes.DEFAULT);
    }

    /** The fence a {@code method} request of {@code path} for {@code unit} meets, or {@code null} when it passes. */
    public FencePolicy fenceFor(String unit, String method, String path) {
        if (byUnit.isEmpty()) {
            return null;
        }
        FencePolicy fence = byUnit.get(unit);
        return fence != null && writes.isWrite(method, path) ? fence : null;
    }

    /** The fenced units and their fences. */
    public Map<String, FencePolicy> fences() {
        return byUnit;
    }

    /** Which requests count as writes. */
    public Writes writes() {
        return writes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WriteFences other && byUnit.equals(other.byUnit) && writes.equals(other.writes);
    }

    @Override
    public int hashCode() {
        return byUnit.hashCode() * 31 + writes.hashCode();
    }

    @Override
    public String toString() {
        return "WriteFences{" + byUnit + ", " + writes + '}';
    }
}
