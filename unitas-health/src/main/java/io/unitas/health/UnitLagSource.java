package io.unitas.health;

import java.util.List;

import io.unitas.core.health.UnitLag;

/**
 * Where a region's per-unit replication lag comes from: the data layer that ships the region's changes. The health
 * agent adds what it returns to every report it publishes, so that a switchover can wait on the moving units' lag.
 * Called on the agent's threads; it must return quickly, and a unit or region it leaves out counts as unknown.
 */
@FunctionalInterface
public interface UnitLagSource {

    /** No per-unit lag: every unit's lag is unknown. */
    UnitLagSource NONE = List::of;

    /** Per unit and other region, how far the data this region ships is behind there, as measured now. */
    List<UnitLag> unitLags();
}
