/**
 * The one routing decision every caller asks: {@link io.unitas.core.routing.RoutingDecision} over one immutable
 * {@link io.unitas.core.routing.RoutingSnapshot}, returning a sealed {@link io.unitas.core.routing.Verdict} (forward,
 * or refuse with a problem of the {@link io.unitas.core.ProblemType} catalog). The gateway, the service SDK, DNS and
 * the command line hold no routing logic of their own.
 */
package io.unitas.core.routing;
