package io.unitas.control;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.unitas.control.client.wire.StalenessBudget;
import io.unitas.core.RegionHealth;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.consistency.ConsistencyLevel;
import io.unitas.core.consistency.Declaration;
import io.unitas.core.consistency.MeasuredLag;
import io.unitas.core.health.UnitLag;

/**
 * {@code GET /api/v1/budgets}: each bounded-staleness declaration of the contract the control plane was started with
 * ({@code --consistency}), against the largest replication lag the regions report now; the same comparison
 * {@code unitas check consistency --control} makes in CI, seen live in the console.
 */
final class BudgetsView {

    private BudgetsView() {}

    /** What the regions' latest reports measured: each database's lag, and each unit's lag from its origin. */
    static MeasuredLag measured(ControlState state) {
        List<MeasuredLag.Sample> samples = new ArrayList<>();
        state.health().forEach((region, entry) -> {
            if (entry.reported().replicationLagMs() != RegionHealth.UNKNOWN_LAG) {
                samples.add(MeasuredLag.Sample.ofDatabase(region.id(), entry.reported().replicationLagMs()));
            }
            for (UnitLag lag : entry.unitLags()) {
                samples.add(MeasuredLag.Sample.ofUnit(lag.unit(), region.id(), lag.to().id(), lag.lagMs()));
            }
        });
        return new MeasuredLag(samples);
    }

    /** Each bounded-staleness declaration of {@code contract}, in its order, against what {@code state} measured. */
    static List<StalenessBudget> of(ConsistencyContract contract, ControlState state) {
        MeasuredLag measured = measured(state);
        Optional<MeasuredLag.Sample> largest = measured.largest();
        List<StalenessBudget> out = new ArrayList<>();
        for (Declaration d : contract.declarations()) {
            if (d.level() == ConsistencyLevel.BOUNDED_STALENESS) {
                out.add(new StalenessBudget(d.name(), d.at("staleness_budget").toString(), d.budget(),
                                            largest.map(MeasuredLag.Sample::lagMs).orElse(-1L),
                                            largest.map(MeasuredLag.Sample::what).orElse(""),
                                            measured.over(d.budget()).isPresent()));
            }
        }
        return out;
    }
}
