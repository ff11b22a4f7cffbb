package io.unitas.data.store;

import io.unitas.core.Region;
import java.util.Objects;

/**
 * The outcome of one store call: a value, or the expected reason there is none. Stores return these rather than
 * throwing on conditions a caller must handle (missing, read-only, unreachable, taken).
 *
 * @param status what happened
 * @param value  the value when {@code OK}, the existing value when {@code CONFLICT}, otherwise {@code null}
 * @param detail one line saying what and where, empty when {@code OK}
 * @param <T>    the value type
 */
public record StoreResult<T>(Status status, T value, String detail) {

    /** What happened. */
    public enum Status {
        /** Done; {@code value} holds the result. */
        OK,
        /** Nothing is stored under the key. */
        NOT_FOUND,
        /** The store refuses writes. */
        READ_ONLY,
        /** The store cannot be reached or failed. */
        UNAVAILABLE,
        /** The key is already taken; {@code value} holds what is stored. */
        CONFLICT
    }

    /** Requires a status and a detail. */
    public StoreResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(detail, "detail");
    }

    /** A result holding {@code value}. */
    public static <T> StoreResult<T> ok(T value) {
        return new StoreResult<>(Status.OK, value, "");
    }

    /** Nothing stored under {@code key} in {@code region}. */
    public static <T> StoreResult<T> notFound(Region region, String what, String key) {
        return new StoreResult<>(Status.NOT_FOUND, null, region + ": no " + what + " '" + key + "'");
    }

    /** {@code region}'s store refuses writes. */
    public static <T> StoreResult<T> readOnly(Region region) {
        return new StoreResult<>(Status.READ_ONLY, null, region + ": store is read-only");
    }

    /** {@code region}'s store cannot be reached, because of {@code why}. */
    public static <T> StoreResult<T> unavailable(Region region, String why) {
        return new StoreResult<>(Status.UNAVAILABLE, null, region + ": store is unavailable: " + why);
    }

    /** {@code key} is taken in {@code region}; {@code existing} is what is stored. */
    public static <T> StoreResult<T> conflict(Region region, String what, String key, T existing) {
        return new StoreResult<>(Status.CONFLICT, existing, region + ": " + what + " '" + key + "' already exists");
    }

    /** Whether the call succeeded. */
    public boolean isOk() {
        return status == Status.OK;
    }
}
