/**
 * How a routing decision travels along a call chain: the stamp one unitas gateway puts on a request so the
 * next one does not route it again, and the hop limit that ends a loop.
 */
package io.unitas.core.propagation;
