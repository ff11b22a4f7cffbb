package io.unitas.example;

/**
 * One inbound call as the service that served it saw it.
 *
 * @param service  the serving service's name ({@code order}, {@code inventory})
 * @param instance the serving instance's id
 * @param region   the region the serving instance runs in
 * @param path     the request's path
 * @param unit     the unit of the request's routing context, or null for a call without one
 * @param routedTo the region the context names (the gateway's route decision, stamped and carried from call to call),
 *                 or null
 * @param origin   the region the request entered at, or null
 * @param thread   the name of the thread that made the call to this service, as the caller sent it, or null
 * @param homeNow  the unit's home in the serving service's routing state when it served the call, or null
 */
public record ServiceCall(String service, String instance, String region, String path, String unit, String routedTo,
                          String origin, String thread, String homeNow) {

    /** A call that carries a unit: it must be served where its unit is routed. */
    public boolean crossUnit() {
        return unit != null;
    }

    /**
     * Whether the call carries a unit and a routed region and was served in another region: the load balancer sent it
     * somewhere the route decision did not. A failover is not wrong: the gateway's decision then names the failover
     * region, and the starter's follows the same state. Nor is a call whose unit moved while it was under way: the
     * gateway's decision predates the move, and the call went where the unit lives now.
     */
    public boolean wrongRegion() {
        return unit != null && routedTo != null && !routedTo.equals(region) && !region.equals(homeNow);
    }
}
