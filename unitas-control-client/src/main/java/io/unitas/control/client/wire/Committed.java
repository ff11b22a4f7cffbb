package io.unitas.control.client.wire;

/**
 * A change the control plane committed (or found already in place): the revision of the state that holds it.
 *
 * @param revision the state's revision after the change; 0 when nothing changed (204)
 */
public record Committed(long revision) {}
