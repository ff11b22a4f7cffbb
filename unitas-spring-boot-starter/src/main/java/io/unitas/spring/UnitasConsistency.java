package io.unitas.spring;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.UnitLagReport;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The consistency contract at run time: per entity declared with a staleness budget, the measured replication lag of
 * this region's changes in the other regions against that budget, as gauges ({@code unitas.consistency.lag} and
 * {@code unitas.consistency.budget}, seconds, tag {@code entity}: Prometheus's
 * {@code unitas_consistency_lag_seconds} and {@code unitas_consistency_budget_seconds}) and as a reason in
 * {@code /actuator/health/unitas} when exceeded, gating by {@code unitas.consistency.gate}.
 *
 * <p>Changes travel per unit, not per entity type, so an entity's lag is that of the slowest unit stream this region
 * ships (the age of the oldest change not yet applied in some region): a bound on every entity's staleness there. A
 * report found lagging is aged by the time since its round, so a shipper that stops measuring does not freeze the lag.
 */
final class UnitasConsistency implements UnitasHealthReasons, SmartInitializingSingleton {

    private final UnitasReplication replication;
    private final UnitasBudgets budgets;
    private final UnitasConsistencyProperties.Gate gate;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Set<String> metered = ConcurrentHashMap.newKeySet();

    UnitasConsistency(UnitasReplication replication, UnitasBudgets budgets,
                      UnitasConsistencyProperties.Gate gate, Clock clock, MeterRegistry registry) {
        this.replication = replication;
        this.budgets = budgets;
        this.gate = gate;
        this.clock = clock;
        this.registry = registry;
    }

    // The entity beans exist by now (reading them earlier could close a cycle through the service's repositories).
    @Override
    public void afterSingletonsInstantiated() {
        budgets();
    }

    /** The declared budgets by entity type, their gauges registered on first sight. */
    Map<String, Duration> budgets() {
        Map<String, Duration> budgets = this.budgets.byType();
        budgets.forEach((type, budget) -> {
            if (metered.add(type)) {
                Gauge.builder("unitas.consistency.lag", this, c -> c.lagMillis().values().stream()
                                                                   .mapToLong(Long::longValue).max().orElse(0)
                                                                / 1000.0)
                     .tag("entity", type).baseUnit("seconds")
                     .description("replication lag of the entity's changes in the other regions (slowest unit)")
                     .register(registry);
                Gauge.builder("unitas.consistency.budget", budget, b -> b.toMillis() / 1000.0)
                     .tag("entity", type).baseUnit("seconds")
                     .description("the entity's declared staleness budget")
                     .register(registry);
            }
        });
        return budgets;
    }

    /** Per target region: the largest lag of this region's units there now, in milliseconds. */
    Map<Region, Long> lagMillis() {
        UnitLagReport report = replication.lag();
        long age = Math.max(0, clock.millis() - report.at().toEpochMilli());
        Map<Region, Long> byTarget = new LinkedHashMap<>();
        for (Map<Region, Long> ofUnit : report.lagMillis().values()) {
            ofUnit.forEach((target, lag) -> byTarget.merge(target, lag > 0 ? lag + age : 0, Math::max));
        }
        return byTarget;
    }

    @Override
    public List<Reason> reasons() {
        Map<String, Duration> budgets = budgets();
        if (budgets.isEmpty()) {
            return List.of();
        }
        Map<Region, Long> lag = lagMillis();
        List<Reason> reasons = new ArrayList<>();
        budgets.forEach((type, budget) -> lag.forEach((target, millis) -> {
            if (millis > budget.toMillis()) {
                reasons.add(new Reason("consistency: " + type + " lags " + seconds(millis) + " in " + target.id()
                                       + ", over its staleness budget of " + seconds(budget.toMillis())
                                       + " (expected: <= " + seconds(budget.toMillis()) + ")", effect()));
            }
        }));
        return reasons;
    }

    private Effect effect() {
        return switch (gate) {
            case REPORT -> Effect.REPORT;
            case OUT_OF_SERVICE -> Effect.OUT_OF_SERVICE;
            case DOWN -> Effect.DOWN;
        };
    }

    private static String seconds(long millis) {
        return String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
