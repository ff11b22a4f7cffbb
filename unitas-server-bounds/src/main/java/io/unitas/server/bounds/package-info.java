/**
 * The bound every Armeria server of unitas puts on a connection ({@link io.unitas.server.bounds.ConnectionBounds}):
 * the control plane, the health agent's HTTP port and the home-read server. The gateway and the DNS server, on Netty
 * alone, hold the same rule with handlers of their own.
 */
package io.unitas.server.bounds;
