package io.unitas.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import io.unitas.core.health.CheckReport;
import io.unitas.core.health.CheckState;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.HealthRollup;
import io.unitas.core.health.ProbeResult;
import io.unitas.core.health.UnitLag;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.health.UnitReconciliation;

/** The health agent: one scheduled task per probe check, one lock over the checks' states. */
final class DefaultHealthAgent implements HealthAgent {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DefaultHealthAgent.class);

    private final HealthConfig config;
    private final Clock clock;
    private final Map<String, Probe> probes = new LinkedHashMap<>();
    private final Map<String, CheckState> states = new LinkedHashMap<>();
    private final List<Consumer<HealthReport>> listeners = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<String, ProbeResult>> resultObservers = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService scheduler;
    private final UnitLagSource unitLags;
    private HealthReport published;
    private long sequence;
    private boolean unitLagsFailing; // guarded by this
    private boolean positionsFailing; // guarded by this

    DefaultHealthAgent(HealthConfig config, Clock clock) {
        this(config, clock, UnitLagSource.NONE);
    }

    DefaultHealthAgent(HealthConfig config, Clock clock, UnitLagSource unitLags) {
        this(config, clock, unitLags, check -> check.probe().kind() == ProbeConfig.Kind.POSTGRES
                ? new PostgresProbe(check.probe(), config.region(), clock) : Probe.of(check.probe()));
    }

    /** With the probe of each check made by {@code probeOf} (tests give probes of their own). */
    DefaultHealthAgent(HealthConfig config, Clock clock, UnitLagSource unitLags,
                       java.util.function.Function<CheckConfig, Probe> probeOf) {
        this.config = config;
        this.clock = clock;
        this.unitLags = unitLags;
        Instant now = clock.instant();
        for (CheckConfig check : config.checks()) {
            if (!check.calculated()) {
                probes.put(check.name(), probeOf.apply(check));
                states.put(check.name(), CheckState.initial(now));
            }
        }
        AtomicInteger n = new AtomicInteger();
        this.scheduler = Executors.newScheduledThreadPool(probes.size() + 1, r -> {
            Thread t = new Thread(r, "unitas-health-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.published = withUnitLags(compute(now).withSequence(++sequence));
    }

    void start() {
        Duration tick = Duration.ofMillis(100);
        for (CheckConfig check : config.checks()) {
            if (!check.calculated()) {
                scheduler.scheduleAtFixedRate(surviving("check " + check.name(), () -> run(check)), 0,
                                              check.interval().toMillis(), TimeUnit.MILLISECONDS);
                tick = check.interval().compareTo(tick) < 0 ? check.interval() : tick;
            }
        }
        // Re-rolling up on a tick of its own is what turns a probe that went silent into a change.
        scheduler.scheduleAtFixedRate(surviving("health roll-up", this::refresh), tick.toMillis(), tick.toMillis(),
                                      TimeUnit.MILLISECONDS);
    }

    /**
     * {@code task}, outliving any throwable of one run: a scheduled task that throws is never run again, and a check
     * that is never probed again keeps its last state for ever. An out-of-memory ends the process before this
     * (-XX:+ExitOnOutOfMemoryError).
     */
    static Runnable surviving(String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable e) { // NOPMD: see above
                log.warn("{} failed; retrying on the next run: {}", what, e.toString());
            }
        };
    }

    /** Also tells {@code observer} of every probe result, as it arrives (for latency metrics). */
    void observeResults(BiConsumer<String, ProbeResult> observer) {
        resultObservers.add(observer);
    }

    private void run(CheckConfig check) {
        ProbeResult result;
        try {
            result = probes.get(check.name()).probe(check.timeout());
        } catch (RuntimeException | Error e) { // NOPMD: a scheduled task that throws is never run again
            // an out-of-memory ends the process first (-XX:+ExitOnOutOfMemoryError); any other Error is this probe's
            result = ProbeResult.down(Duration.ZERO, "probe failed: " + ProbeFailure.firstLine(e));
        }
        synchronized (this) {
            states.put(check.name(), states.get(check.name()).next(result, check.thresholds(), clock.instant()));
        }
        for (BiConsumer<String, ProbeResult> observer : resultObservers) {
            observer.accept(check.name(), result);
        }
        refresh();
    }

    private synchronized void refresh() {
        HealthReport now = compute(clock.instant());
        if (now.differsFrom(published)) {
            published = withUnitLags(now.withSequence(++sequence));
            for (Consumer<HealthReport> listener : listeners) {
                listener.accept(published);
            }
        }
    }

    private synchronized HealthReport compute(Instant now) {
        Map<String, CheckReport> reports = new LinkedHashMap<>();
        for (CheckConfig check : config.checks()) {
            if (!check.calculated()) {
                reports.put(check.name(),
                            states.get(check.name()).report(now, check.staleAfter(), check.inverted()));
            }
        }
        for (CheckConfig check : config.checks()) {
            if (check.calculated()) {
                Map<String, CheckReport> children = new LinkedHashMap<>();
                check.children().forEach(child -> children.put(child, reports.get(child)));
                CheckReport calculated = check.aggregation().apply(children);
                reports.put(check.name(), check.inverted() ? calculated.inverted() : calculated);
            }
        }
        Map<String, CheckReport> ordered = new LinkedHashMap<>();
        List<HealthRollup.Entry> entries = new ArrayList<>();
        for (CheckConfig check : config.checks()) {
            CheckReport report = reports.get(check.name());
            ordered.put(check.name(), report);
            entries.add(new HealthRollup.Entry(check.name(), check.gate(), check.maxLag().toMillis(), report));
        }
        return new HealthReport(config.region(), sequence, now, HealthRollup.rollUp(entries), ordered);
    }

    @Override
    public HealthConfig config() {
        return config;
    }

    @Override
    public synchronized HealthReport current() {
        return withUnitLags(compute(clock.instant()));
    }

    /**
     * {@code report} with the per-unit lag and positions measured now. A source that fails leaves every unit's lag
     * unknown (a switchover waiting on it cannot flip, and says so); the first failure of a run is logged, and the
     * recovery.
     */
    private synchronized HealthReport withUnitLags(HealthReport report) {
        HealthReport out = report.withPositions(probedPositions()).withReconciliation(probedReconciliation());
        if (unitLags == UnitLagSource.NONE) {
            return out;
        }
        try {
            List<UnitLag> lags = unitLags.unitLags();
            UnitPositions positions = unitLags.positions();
            if (unitLagsFailing) {
                unitLagsFailing = false;
                log.info("per-unit replication lag of {} is measured again", config.region());
            }
            out = out.withUnitLags(lags);
            return positions.known() ? out.withPositions(positions) : out;
        } catch (RuntimeException e) {
            if (!unitLagsFailing) {
                unitLagsFailing = true;
                log.warn("per-unit replication lag of {} cannot be measured; reporting it unknown until it can",
                         config.region(), e);
            }
            return out;
        }
    }

    /**
     * The positions read by the first {@code unitas-schema} check that could read them, else none. A check that
     * cannot read them says why in its details; the first failure of a run is logged, and the recovery.
     */
    private UnitPositions probedPositions() {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Probe> e : probes.entrySet()) {
            if (e.getValue() instanceof PostgresProbe pg && pg.readsPositions()) {
                if (pg.positions().known()) {
                    if (positionsFailing) {
                        positionsFailing = false;
                        log.info("replication positions of {} are read again by check {}", config.region(),
                                 e.getKey());
                    }
                    return pg.positions();
                }
                if (!pg.positionsProblem().isEmpty()) { // empty: not probed yet
                    problems.add(e.getKey() + ": " + pg.positionsProblem());
                }
            }
        }
        if (!problems.isEmpty() && !positionsFailing) {
            positionsFailing = true;
            log.warn("replication positions of {} cannot be read ({}); every unit's lag from and to it is unknown "
                     + "until they can", config.region(), String.join("; ", problems));
        }
        return UnitPositions.NONE;
    }

    /** The open siblings and reconciliation passes read by the first {@code unitas-schema} check that read them. */
    private UnitReconciliation probedReconciliation() {
        for (Probe probe : probes.values()) {
            if (probe instanceof PostgresProbe pg && pg.readsPositions() && pg.reconciliation().known()) {
                return pg.reconciliation();
            }
        }
        return UnitReconciliation.NONE;
    }

    @Override
    public synchronized void subscribe(Consumer<HealthReport> listener) {
        listener.accept(published);
        listeners.add(listener);
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        probes.values().forEach(Probe::close);
    }
}
