package io.unitas.playground;

import java.util.List;
import java.util.Map;

/**
 * What a drill counted. The invariants ({@link #holds()}): no acknowledged registration later answered "account
 * not found", no idempotency key with more than one order that was not compensated, no acknowledged cart item lost,
 * and (when the example service pair ran) no call of it served outside the region its unit was routed to.
 *
 * @param scenario            the fault
 * @param naive               whether it ran with the seed's setup instead of unitas
 * @param durationMillis      the drill's length
 * @param faultAtMillis       when the fault was injected (since the start)
 * @param recoveryAtMillis    when it was undone
 * @param requests            HTTP requests sent
 * @param accountNotFound     acknowledged registrations later answered "account not found"
 * @param duplicateOrders     idempotency keys that produced more than one order not compensated (refunded) by
 *                            reconciliation: uncompensated duplicate orders
 * @param lostCartItems       acknowledged cart items missing from the cart at the end
 * @param sessionsLost        valid sessions answered "session not found" (the seed's login failures)
 * @param failedInFault       requests that failed (5xx or no answer) of the visits due between fault and recovery
 * @param failoverMillis      from the fault to the first success of a faulted-region user served elsewhere; -1
 *                            when that never happened
 * @param timeline            per second: served requests by region, and errors
 * @param window              what the users could still do between fault and recovery
 * @param reconciled          what reconciliation did with the changes a promotion left unshipped in the faulted region
 * @param example             the example service pair's calls during the drill ({@link ExampleCalls#none()} when it
 *                            did not run): none may be served outside the region its unit was routed to
 */
public record DrillResult(Scenario scenario, boolean naive, long durationMillis, long faultAtMillis,
                          long recoveryAtMillis, long requests, long accountNotFound, long duplicateOrders,
                          long lostCartItems, long sessionsLost, long failedInFault, long failoverMillis,
                          List<Second> timeline, FaultWindow window, Reconciled reconciled,
                          ExampleCalls example) {

    /**
     * What reconciliation did during the drill with the changes the faulted region acknowledged but had not shipped
     * when its unit was promoted (all 0 for naive, which has none).
     *
     * @param duplicatesDetected idempotency keys found with an order on both sides
     * @param compensated        of those, refunded automatically
     * @param conflicts          changes kept aside as conflicts (no merge; the new home's version stands)
     * @param merged             changes merged (carts)
     */
    public record Reconciled(long duplicatesDetected, long compensated, long conflicts, long merged) {
        /** Nothing reconciled. */
        public static Reconciled none() {
            return new Reconciled(0, 0, 0, 0);
        }
    }

    /**
     * Availability during the fault: the goal is that unitas serves at least as many requests here as the naive
     * setup, without giving up an invariant.
     *
     * @param served         successful (2xx) requests of every user's visits due between fault and recovery (and
     *                       of the lost responses' resends due then): the same offered requests in either mode
     * @param faultedServed  of those, the faulted region's users'
     * @param writesBackMillis from the fault to the first successful checkout (a write kept with the user's home
     *                       unit) of a faulted-region user sent after it was in place; -1 when none succeeded before
     *                       recovery or the scenario moves no traffic
     * @param rpoMillis      the RPO the control plane recorded for the faulted region's unit: its lag when it was
     *                       promoted, 0 when a switchover drained it, -1 when it did not move (or a naive run)
     * @param failedAfter    requests that failed (5xx or no answer) of the visits due from the recovery to the end:
     *                       an outage the
     *                       recovery itself causes (a control plane that comes back and forgets every region's
     *                       health did) is as real as the fault's
     */
    public record FaultWindow(long served, long faultedServed, long writesBackMillis, long rpoMillis,
                              long failedAfter) {
        /** Nothing measured. */
        public static FaultWindow none() {
            return new FaultWindow(0, 0, -1, -1, 0);
        }
    }

    /** A result without fault-window figures ({@link FaultWindow#none()}). */
    public DrillResult(Scenario scenario, boolean naive, long durationMillis, long faultAtMillis,
                       long recoveryAtMillis, long requests, long accountNotFound, long duplicateOrders,
                       long lostCartItems, long sessionsLost, long failedInFault, long failoverMillis,
                       List<Second> timeline) {
        this(scenario, naive, durationMillis, faultAtMillis, recoveryAtMillis, requests, accountNotFound,
             duplicateOrders, lostCartItems, sessionsLost, failedInFault, failoverMillis, timeline,
             FaultWindow.none(), Reconciled.none(), ExampleCalls.none());
    }

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
        java.util.Objects.requireNonNull(window, "window");
        java.util.Objects.requireNonNull(reconciled, "reconciled");
        java.util.Objects.requireNonNull(example, "example");
    }

    /** Whether every invariant held. */
    public boolean holds() {
        return accountNotFound == 0 && duplicateOrders == 0 && lostCartItems == 0 && example.wrongRegion() <= 0;
    }

    /** {@code unitas} or {@code naive}. */
    public String mode() {
        return naive ? "naive" : "unitas";
    }
}
