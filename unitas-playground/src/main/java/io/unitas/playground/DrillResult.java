package io.unitas.playground;

import java.util.List;
import java.util.Map;

/**
 * What a drill counted. The invariants ({@link #holds()}): no acknowledged registration later answered "account
 * not found", no idempotency key with more than one order, no acknowledged cart item lost.
 *
 * @param scenario            the fault
 * @param naive               whether it ran with the seed's setup instead of unitas
 * @param durationMillis      the drill's length
 * @param faultAtMillis       when the fault was injected (since the start)
 * @param recoveryAtMillis    when it was undone
 * @param requests            HTTP requests sent
 * @param accountNotFound     acknowledged registrations later answered "account not found"
 * @param duplicateOrders     idempotency keys that produced more than one order
 * @param lostCartItems       acknowledged cart items missing from the cart at the end
 * @param sessionsLost        valid sessions answered "session not found" (the seed's login failures)
 * @param failedInFault       requests that failed (5xx or no answer) between fault and recovery
 * @param failoverMillis      from the fault to the first success of a faulted-region user served elsewhere; -1
 *                            when that never happened
 * @param timeline            per second: served requests by region, and errors
 */
public record DrillResult(Scenario scenario, boolean naive, long durationMillis, long faultAtMillis,
                          long recoveryAtMillis, long requests, long accountNotFound, long duplicateOrders,
                          long lostCartItems, long sessionsLost, long failedInFault, long failoverMillis,
                          List<Second> timeline) {

    /** One second of the timeline: requests answered per serving region, and failed requests. */
    public record Second(long second, Map<String, Long> servedBy, long errors) {
        /** Freezes the map. */
        public Second {
            servedBy = Map.copyOf(servedBy);
        }
    }

    /** Freezes the timeline. */
    public DrillResult {
        timeline = List.copyOf(timeline);
    }

    /** Whether every invariant held. */
    public boolean holds() {
        return accountNotFound == 0 && duplicateOrders == 0 && lostCartItems == 0;
    }

    /** {@code unitas} or {@code naive}. */
    public String mode() {
        return naive ? "naive" : "unitas";
    }
}
