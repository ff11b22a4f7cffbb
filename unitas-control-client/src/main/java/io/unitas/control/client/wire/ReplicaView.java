package io.unitas.control.client.wire;

/**
 * {@code GET /api/v1/replica}: whether the replica asked leads, and the revision it holds.
 *
 * @param leader   whether it leads (runs the switchover and failover loops)
 * @param revision the revision of its state
 */
public record ReplicaView(boolean leader, long revision) {}
