package io.unitas.health;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import io.unitas.core.health.CheckReport;
import io.unitas.core.health.HealthReport;
import io.unitas.core.Region;
import io.unitas.core.health.ProbeResult;

/**
 * The agent's state as Prometheus metrics: per check {@code unitas_check_up}, {@code unitas_check_latency_seconds}
 * and {@code unitas_replication_lag_seconds}; per region {@code unitas_region_healthy},
 * {@code unitas_region_writable}, {@code unitas_region_health_score} and
 * {@code unitas_region_replication_lag_seconds}; per unit whose data the region ships and other region
 * {@code unitas_unit_replication_lag_seconds{unit,to}} ({@code NaN} once no longer reported). Gauges read the report
 * last handed to {@link #scrape}.
 */
final class HealthMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, Timer> latency = new ConcurrentHashMap<>();
    private final String region;
    private final Set<String> unitGauges = ConcurrentHashMap.newKeySet();
    private volatile HealthReport report;

    HealthMetrics(HealthAgent agent) {
        this.region = agent.config().region().id();
        this.report = agent.current();
        Tags regionTag = Tags.of("region", region);
        for (CheckConfig check : agent.config().checks()) {
            String name = check.name();
            Tags tags = regionTag.and("check", name);
            Gauge.builder("unitas.check.up", this, m -> m.check(name).up() ? 1 : 0).tags(tags)
                    .description("1 when the check passes, after its thresholds").register(registry);
            Gauge.builder("unitas.replication.lag", this, m -> seconds(m.check(name).replicationLagMs())).tags(tags)
                    .baseUnit("seconds").description("replication lag measured by the check").register(registry);
            latency.put(name, Timer.builder("unitas.check.latency").tags(tags)
                    .description("how long each probe took").register(registry));
        }
        Gauge.builder("unitas.region.healthy", this, m -> m.report.healthy() ? 1 : 0).tags(regionTag)
                .description("1 when the region can serve its users").register(registry);
        Gauge.builder("unitas.region.writable", this, m -> m.report.health().writable() ? 1 : 0).tags(regionTag)
                .description("1 when the region takes writes").register(registry);
        Gauge.builder("unitas.region.health.score", this, m -> m.report.health().score()).tags(regionTag)
                .description("0 (cannot serve) to 1 (fully well)").register(registry);
        Gauge.builder("unitas.region.replication.lag", this, m -> seconds(m.report.health().replicationLagMs()))
                .tags(regionTag).baseUnit("seconds").description("largest replication lag of the region's checks")
                .register(registry);
    }

    /** Records one probe's latency. */
    void record(String check, ProbeResult result) {
        Timer timer = latency.get(check);
        if (timer != null) {
            timer.record(result.latency());
        }
    }

    /** The Prometheus text exposition of {@code current}. */
    String scrape(HealthReport current) {
        this.report = current;
        current.unitLags().forEach(lag -> {
            String unit = lag.unit();
            Region to = lag.to();
            if (unitGauges.add(unit + " " + to.id())) {
                Gauge.builder("unitas.unit.replication.lag", this, m -> seconds(m.report.unitLag(unit, to)
                                .map(l -> l.lagMs()).orElse(-1L)))
                        .tags(Tags.of("region", region, "unit", unit, "to", to.id())).baseUnit("seconds")
                        .description("age of the unit's oldest change not yet applied in the other region")
                        .register(registry);
            }
        });
        return registry.scrape();
    }

    private CheckReport check(String name) {
        return report.checks().get(name);
    }

    private static double seconds(long ms) {
        return ms < 0 ? Double.NaN : Duration.ofMillis(ms).toNanos() / 1e9;
    }
}
