package io.unitas.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.rules.Unit;
import io.unitas.data.merge.DigestReconciler;
import io.unitas.data.merge.MergeDigests;
import io.unitas.data.remote.HomeReadClient;

/**
 * Reconciliation by digests run with the application ({@code unitas.reconciliation.*}): once per window, each unit
 * whose home is another region by the live routing state has this region's copy of the merged entities compared with
 * the home's, read from the home's home-read server, and its differences repaired through the merge path
 * ({@link DigestReconciler}). What it finds is a reason in {@code /actuator/health/unitas} and the reconciler's
 * meters; a pass that fails is in the reason too, and the next window tries again.
 */
final class UnitasReconciliation implements SmartLifecycle, UnitasHealthReasons {

    static final String ENABLED = "unitas.reconciliation.enabled";

    private static final Logger log = LoggerFactory.getLogger(UnitasReconciliation.class);

    private final UnitasProperties properties;
    private final UnitasRoutingState state;
    private final UnitasMerge merge;
    private final Supplier<HomeReadClient> client;
    private final MeterRegistry meters;
    private final Clock clock;
    private volatile DigestReconciler reconciler;
    private volatile ReconciliationSchedule schedule;
    private volatile Set<Region> reachable = Set.of();
    private volatile Map<Region, Set<String>> unreached = Map.of();

    UnitasReconciliation(UnitasProperties properties, UnitasRoutingState state, UnitasMerge merge,
                         Supplier<HomeReadClient> client, MeterRegistry meters, Clock clock) {
        this.properties = properties;
        this.state = state;
        this.merge = merge;
        this.client = client;
        this.meters = meters;
        this.clock = clock;
    }

    @Override
    public void start() {
        Boolean enabled = properties.getReconciliation().getEnabled();
        if (Boolean.FALSE.equals(enabled)) {
            return;
        }
        // cheapest first: the endpoints are settings, the merged types and the database are asked for
        HomeReadClient homes = client.get();
        String missing = homes == null ? "no unitas.readiness.home-reads.endpoints to read the homes' copies from"
                         : merge.types().isEmpty() ? "no UnitasEntity declared with a merge policy"
                         : !postgres(merge.dataSource()) ? "this region's database is not PostgreSQL" : null;
        if (missing != null) {
            if (Boolean.TRUE.equals(enabled)) {
                throw new UnitasConfigurationException(List.of(ENABLED + ": true, but " + missing + " (expected: "
                        + "merged entities, home-read endpoints and PostgreSQL, or enabled: false)"));
            }
            log.debug("reconciliation off: {}", missing);
            return;
        }
        Region here = Region.of(properties.getRegion());
        Duration window = properties.getReconciliation().getWindow();
        DigestReconciler.Builder b = DigestReconciler.builder(merge.mergeStore(), MergeDigests.postgres(
                merge.dataSource())).window(window).clock(clock).registry(meters);
        Set<Region> peers = new TreeSet<>();
        properties.getReadiness().getHomeReads().getEndpoints().keySet().forEach(id -> {
            Region home = Region.of(id);
            if (!home.equals(here)) {
                b.home(home, homes.mergeCopy(home));
                peers.add(home);
            }
        });
        reconciler = b.build();
        reachable = Set.copyOf(peers);
        ReconciliationSchedule s = new ReconciliationSchedule(this::pass, window, meters);
        s.start();
        schedule = s;
        log.info("reconciliation of {} in region {} against {}, every {}", merge.types(), here, peers, window);
    }

    /** One pass: the units due, each against its home now; a unit whose home has no endpoint is left out. */
    void pass() {
        Region here = Region.of(properties.getRegion());
        Map<String, Region> homes = new TreeMap<>();
        Map<Region, Set<String>> without = new TreeMap<>();
        for (Unit unit : state.current().rules().units()) {
            if (unit.home().equals(here) || reachable.contains(unit.home())) {
                homes.put(unit.id(), unit.home());
            } else {
                without.computeIfAbsent(unit.home(), h -> new TreeSet<>()).add(unit.id());
            }
        }
        unreached = Map.copyOf(without);
        reconciler.runDue(homes);
    }

    @Override
    public List<Reason> reasons() {
        DigestReconciler r = reconciler;
        ReconciliationSchedule s = schedule;
        if (r == null || s == null) {
            return List.of();
        }
        List<Reason> reasons = new ArrayList<>();
        // open siblings have a reason of their own (unitasSiblingsReasons)
        r.driftReason().ifPresent(line -> reasons.add(new Reason("reconciliation: " + line, Effect.REPORT)));
        s.lastError().ifPresent(e -> reasons.add(new Reason("reconciliation: the last pass failed: " + e
                                                            + " (retried every " + properties.getReconciliation()
                                                                                               .getWindow() + ")",
                                                            Effect.REPORT)));
        unreached.forEach((home, units) -> reasons.add(new Reason("reconciliation: units " + units + " of region "
                + home + " not reconciled (expected: unitas.readiness.home-reads.endpoints." + home + ")",
                Effect.REPORT)));
        return reasons;
    }

    private static boolean postgres(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return "PostgreSQL".equals(c.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            log.warn("reconciliation: cannot tell this region's database ({}); taken as PostgreSQL", e.getMessage());
            return true;
        }
    }

    @Override
    public void stop() {
        ReconciliationSchedule s = schedule;
        schedule = null;
        if (s != null) {
            s.close();
        }
    }

    @Override
    public boolean isRunning() {
        return schedule != null;
    }
}
