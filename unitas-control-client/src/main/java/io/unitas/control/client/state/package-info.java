/**
 * The routing state a follower of the control plane sees (topology, unit rules, region health, write fences), from
 * the control plane's watch stream or from static files, as one immutable {@link
 * io.unitas.control.client.state.RoutingState} swapped whole in a {@link io.unitas.control.client.state.StateHolder}.
 * A state that does not read or validate is refused with one log line and the last good one is kept. The gateway and
 * the DNS server both follow state this way, so they make the same route decision from the same state.
 */
package io.unitas.control.client.state;
