/**
 * Switchovers as pure values: the phases a move of units to another region goes through (fence, catch up,
 * flip, unfence) and the transition from one phase to the next given the time and the target's measured
 * replication lag; the write fences that keep data still while it moves are
 * {@link io.unitas.core.fence.FenceRecord}s. The control plane persists these values and performs their effects;
 * nothing here performs I/O or reads a clock.
 */
package io.unitas.core.switchover;
