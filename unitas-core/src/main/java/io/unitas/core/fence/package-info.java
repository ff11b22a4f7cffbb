/**
 * Write fences: which units refuse or throttle writes while their data moves, which methods are writes, and the
 * token bucket that meters throttled writes. Pure values and one ticker-driven meter; no clocks of their own.
 */
package io.unitas.core.fence;
