/**
 * Write fences: who fenced a unit and why ({@link io.unitas.core.fence.FenceRecord}), how its writes are treated
 * ({@link io.unitas.core.fence.FencePolicy}: refused, or throttled), which methods are writes and which units are
 * fenced right now ({@link io.unitas.core.fence.WriteFences}), and the token bucket that meters throttled writes.
 * Pure values and one ticker-driven meter; no clocks of their own.
 */
package io.unitas.core.fence;
