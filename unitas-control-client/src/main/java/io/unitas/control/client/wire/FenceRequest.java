package io.unitas.control.client.wire;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code POST /api/v1/fences}: fence the writes of {@code units}, saying why; refused writes are told to wait
 * {@code retryAfter} ({@code {"units": ["u-sh"], "reason": "move", "retry_after": "10s"}}).
 *
 * @param units      the units to fence
 * @param reason     why, for the audit log and for refused writes ({@code ""}: none)
 * @param retryAfter what a refused write is told to wait; null for the server's default
 */
public record FenceRequest(List<String> units, String reason, Duration retryAfter) {

    public FenceRequest {
        units = List.copyOf(units);
        reason = Objects.requireNonNullElse(reason, "");
    }

    /** Fences {@code units} with the server's default retry-after. */
    public static FenceRequest of(List<String> units, String reason) {
        return new FenceRequest(units, reason, null);
    }
}
