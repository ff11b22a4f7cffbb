package io.unitas.health;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import io.unitas.core.health.UnitLag;
import io.unitas.core.health.UnitPositions;

/**
 * Where a region's per-unit replication lag comes from: the data layer that ships the region's changes. The health
 * agent adds what it returns to every report it publishes, so that a switchover can wait on the moving units' lag.
 * Called on the agent's threads; it must return quickly, and a unit or region it leaves out counts as unknown.
 *
 * <p>A region that cannot see the other regions measures its side only: its {@link #positions()}, what its own
 * database says it has written and applied. The control plane puts every region's positions side by side and
 * computes the lag of each unit on each link ({@link io.unitas.core.health.UnitLinks}).
 */
@FunctionalInterface
public interface UnitLagSource {

    /** No per-unit lag: every unit's lag is unknown. */
    UnitLagSource NONE = List::of;

    /** Per unit and other region, how far the data this region ships is behind there, as measured now. */
    List<UnitLag> unitLags();

    /**
     * What this region's own database says it has written and applied, per unit, as read now;
     * {@link UnitPositions#NONE} (the default) when this source does not read them.
     */
    default UnitPositions positions() {
        return UnitPositions.NONE;
    }

    /**
     * A source of positions only, read by {@code reader} on every report (for example a service's
     * {@code JdbcUnitPositions::read}); a reader that throws leaves the report's positions unknown, and is logged.
     */
    static UnitLagSource positions(Supplier<UnitPositions> reader) {
        Objects.requireNonNull(reader, "reader");
        return new UnitLagSource() {
            @Override
            public List<UnitLag> unitLags() {
                return List.of();
            }

            @Override
            public UnitPositions positions() {
                return Objects.requireNonNull(reader.get(), "positions");
            }

            @Override
            public String toString() {
                return "UnitLagSource.positions(" + reader + ")";
            }
        };
    }
}
