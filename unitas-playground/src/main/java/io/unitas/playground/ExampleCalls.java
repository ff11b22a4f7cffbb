package io.unitas.playground;

/**
 * What the example service pair ({@code examples/order-inventory}) served, as its services recorded each inbound
 * call: every call, those that carried a unit, and of those the ones served in another region than the unit's route
 * decision named (the stamp the gateway wrote and the services carried on). The last must stay 0: the starter sends
 * each call where the gateway sent the request, also from an {@code @Async} method; a failover is not wrong, since
 * the decision then names the failover region.
 *
 * @param calls       inbound calls served by the order and inventory instances; -1 when the example did not run
 * @param crossUnit   of those, the calls that carried a unit
 * @param wrongRegion of those, the calls served outside the region their unit was routed to
 */
public record ExampleCalls(long calls, long crossUnit, long wrongRegion) {

    /** The example did not run. */
    public static ExampleCalls none() {
        return new ExampleCalls(-1, -1, -1);
    }

    /** Whether the example ran. */
    public boolean ran() {
        return calls >= 0;
    }

    /** The calls since {@code before} (taken from the same playground). */
    public ExampleCalls since(ExampleCalls before) {
        if (!ran() || !before.ran()) {
            return this;
        }
        return new ExampleCalls(calls - before.calls, crossUnit - before.crossUnit, wrongRegion - before.wrongRegion);
    }
}
