package io.unitas.gateway;

import io.unitas.core.ProblemDetail;
import io.unitas.core.Region;

/**
 * What the gateway does with one request: forward it to {@code target}'s upstreams (of gray {@code version}, or the
 * default ones), or answer it with {@code problem}. Unit, home, target and route are also the request's labels in
 * the metrics and the access log; each is {@code null} where the gateway could not tell.
 *
 * @param unit    the request's unit
 * @param home    the unit's home region
 * @param target  the region that serves the request
 * @param route   the route decision's reason ({@code home}, {@code failover}, {@code spillover}, …) or {@code prerouted}
 * @param version the gray version picking the endpoints, or {@code null}
 * @param hops    how many unitas gateways the request passed before this one
 * @param problem the answer, or {@code null} when the request is forwarded
 */
record Decision(String unit, Region home, Region target, String route, String version, int hops, ProblemDetail problem) {

    static Decision refuse(String unit, Region home, Region target, String route, ProblemDetail problem) {
        return new Decision(unit, home, target, route, null, 0, problem);
    }

    boolean forwards() {
        return problem == null;
    }
}
