/**
 * Switchovers as pure values: the phases a move of units to another region goes through (fence, catch up,
 * flip, unfence), the transition from one phase to the next given the time and the target's measured
 * replication lag, and the write fences that keep data still while it moves. The control plane persists
 * these values and performs their effects; nothing here performs I/O or reads a clock.
 */
package io.unitas.core.switchover;
