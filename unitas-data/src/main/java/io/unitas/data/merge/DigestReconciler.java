package io.unitas.data.merge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.reconcile.RangeDiff;
import io.unitas.core.reconcile.RangeDigest;
import io.unitas.core.reconcile.RepairAction;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciliation by digests (对账): per unit whose home is another region, once per window, this region's copy of every
 * merged entity type is compared with the home's by key-range digests ({@link MergeDigests}); in each range that
 * differs the keys that differ are repaired one by one through the store's own locked path, by
 * {@link RepairAction#decide} — the home's state adopted or replaced where the home has seen everything this copy has,
 * merged by the entity's policy where this region holds writes on their way home, a row neither side wrote removed.
 * Nothing this region or its home wrote is lost, and the applied positions of replication are not touched.
 *
 * <p>What it found and fixed is returned as a {@link DigestReport}, counted in
 * {@code unitas.data.reconcile.digest.keys{type,action}}, and summed in the gauge
 * {@code unitas.data.reconcile.digest.ranges.pending} (ranges still differing after each unit's last pass);
 * {@link #reason()} is a line for the region's health report while anything is pending, failing, stalled or open.
 * Each unit's last pass is also kept in the region's database ({@code unitas_reconcile_passes}), where the health
 * agent reads it for the control plane.
 */
public final class DigestReconciler {

    private static final Logger LOG = LoggerFactory.getLogger(DigestReconciler.class);

    private final JdbcMergeStore store;
    private final MergeDigests here;
    private final Map<Region, MergeDigests> homes;
    private final int ranges;
    private final Duration window;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Map<String, Instant> lastPass = new ConcurrentHashMap<>();
    private final Map<String, DigestReport> lastReport = new ConcurrentHashMap<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final Counter failures;

    private DigestReconciler(Builder b) {
        if (!(b.store instanceof JdbcMergeStore jdbc)) {
            throw new IllegalArgumentException("store: " + b.store + " (expected: MergeStore.jdbc)");
        }
        this.store = jdbc;
        this.here = b.here;
        this.homes = Map.copyOf(b.homes);
        this.ranges = b.ranges;
        this.window = b.window;
        this.clock = b.clock;
        this.registry = b.registry;
        this.failures = Counter.builder("unitas.data.reconcile.digest.failures")
                               .description("reconciliation passes stopped by a copy that could not be read")
                               .register(registry);
        Gauge.builder("unitas.data.reconcile.digest.ranges.pending", pending, AtomicInteger::get)
             .description("ranges still differing from the home's after each unit's last pass")
             .register(registry);
    }

    /** A reconciler of {@code store}'s entities, this region's copy read by {@code here}. */
    public static Builder builder(MergeStore store, MergeDigests here) {
        return new Builder(store, here);
    }

    /**
     * One pass for each unit of {@code homes} (unit to its home region now) whose home is another region and whose
     * last pass is at least a window old; returns their reports. Never throws for I/O: a copy that cannot be read
     * ends that unit's pass with a failure, retried next window.
     */
    public List<DigestReport> runDue(Map<String, Region> homes) {
        Instant now = clock.instant();
        List<DigestReport> reports = new ArrayList<>();
        homes.forEach((unit, home) -> {
            if (home.equals(store.region())) {
                if (lastReport.remove(unit) != null) { // moved here: this copy is the home's now
                    lastPass.remove(unit);
                    pending.set(lastReport.values().stream().mapToInt(DigestReport::rangesPending).sum());
                    store.forgetPass(unit);
                }
                return;
            }
            Instant last = lastPass.get(unit);
            if (last == null || !now.isBefore(last.plus(window))) {
                reports.add(reconcile(unit, home));
            }
        });
        return reports;
    }

    /** One pass for {@code unit} against {@code home}'s copy, now. */
    public DigestReport reconcile(String unit, Region home) {
        MergeDigests theirs = homes.get(home);
        if (theirs == null) {
            throw new IllegalArgumentException("home: " + home + " of unit " + unit + " (expected one of "
                                               + homes.keySet() + ")");
        }
        Instant at = clock.instant();
        Map<RepairAction, Integer> keys = new EnumMap<>(RepairAction.class);
        int compared = 0;
        int differing = 0;
        int stillDiffering = 0;
        Optional<String> failure = Optional.empty();
        try {
            for (MergedEntity<?> entity : store.entities().values()) {
                compared += ranges;
                Set<Integer> differ = RangeDiff.differing(theirs.digests(unit, entity.type(), ranges),
                                                                here.digests(unit, entity.type(), ranges));
                differing += differ.size();
                if (!differ.isEmpty()) {
                    stillDiffering += repairRanges(entity, unit, theirs, differ, keys);
                }
            }
        } catch (IllegalStateException | SQLException e) {
            failure = Optional.of(e.getMessage());
            failures.increment();
            LOG.warn("reconciliation of unit {} against {} failed, retried next window: {}", unit, home,
                     e.getMessage());
        }
        DigestReport report = new DigestReport(unit, home, at, compared, differing, keys, stillDiffering, failure);
        lastPass.put(unit, at);
        lastReport.put(unit, report);
        store.recordPass(report, window);
        pending.set(lastReport.values().stream().mapToInt(DigestReport::rangesPending).sum());
        if (report.repaired() > 0 || failure.isPresent()) {
            LOG.info("reconciled unit {} against {}: {} of {} ranges differed, keys {}, {} ranges pending", unit,
                     home, differing, compared, keys, stillDiffering);
        }
        return report;
    }

    // Repairs the keys that differ in the ranges that differ (one read of each copy); returns how many of those
    // ranges are left differing (writes on their way home).
    private <S> int repairRanges(MergedEntity<S> entity, String unit, MergeDigests theirs, Set<Integer> differ,
                                 Map<RepairAction, Integer> keys) throws SQLException {
        Map<String, MergeDigests.Row> homeRows = theirs.rows(unit, entity.type(), ranges, differ);
        Map<String, MergeDigests.Row> hereRows = here.rows(unit, entity.type(), ranges, differ);
        Set<String> all = new HashSet<>(homeRows.keySet());
        all.addAll(hereRows.keySet());
        Set<Integer> left = new HashSet<>();
        for (String key : all) {
            MergeDigests.Row h = homeRows.get(key);
            MergeDigests.Row l = hereRows.get(key);
            if (h != null && l != null && Arrays.equals(h.state(), l.state())) {
                continue;
            }
            Optional<S> home = h == null ? Optional.empty() : Optional.of(entity.codec().decode(h.state()));
            RepairAction action = store.repair(entity, unit, key, home);
            if (action == RepairAction.NONE) {
                continue;
            }
            keys.merge(action, 1, Integer::sum);
            Counter.builder("unitas.data.reconcile.digest.keys")
                   .description("keys found different from the home's copy, by what reconciliation did")
                   .tag("type", entity.type()).tag("action", action.name())
                   .register(registry).increment();
            if (action == RepairAction.KEEP || action == RepairAction.MERGE) {
                left.add(MergeDigests.range(key, ranges));
            }
        }
        return left.size();
    }

    /** The last pass of each unit reconciled so far. */
    public Map<String, DigestReport> lastReports() {
        return Map.copyOf(new LinkedHashMap<>(lastReport));
    }

    /**
     * One line for the region's health report, or empty when all is well: units whose last pass failed or left
     * ranges differing, units not reconciled for three windows, and entities with open siblings.
     */
    public Optional<String> reason() {
        List<String> parts = new ArrayList<>(driftParts());
        try {
            int open = store.openSiblings().size();
            if (open > 0) {
                parts.add(open + " entities with open siblings");
            }
        } catch (IllegalStateException e) {
            parts.add(e.getMessage());
        }
        return parts.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", parts));
    }

    /**
     * As {@link #reason()} without the open siblings: for a health report that lists those on their own line (the
     * Spring Boot starter's).
     */
    public Optional<String> driftReason() {
        List<String> parts = driftParts();
        return parts.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", parts));
    }

    private List<String> driftParts() {
        List<String> parts = new ArrayList<>();
        Instant now = clock.instant();
        lastReport.values().stream().sorted(java.util.Comparator.comparing(DigestReport::unit)).forEach(r -> {
            r.failure().ifPresent(f -> parts.add("unit " + r.unit() + ": reconciliation against " + r.home()
                                                 + " failed: " + f));
            if (r.rangesPending() > 0) {
                parts.add("unit " + r.unit() + ": " + r.rangesPending() + " ranges differ from " + r.home()
                          + " (writes on their way there)");
            }
            if (now.isAfter(r.at().plus(window.multipliedBy(3)))) {
                parts.add("unit " + r.unit() + ": not reconciled since " + r.at() + " (window " + window + ")");
            }
        });
        return parts;
    }

    /** Builds a {@link DigestReconciler}. */
    public static final class Builder {

        private final MergeStore store;
        private final MergeDigests here;
        private final Map<Region, MergeDigests> homes = new LinkedHashMap<>();
        private int ranges = 1024;
        private Duration window = Duration.ofSeconds(10);
        private Clock clock = Clock.systemUTC();
        private MeterRegistry registry;

        private Builder(MergeStore store, MergeDigests here) {
            this.store = Objects.requireNonNull(store, "store");
            this.here = Objects.requireNonNull(here, "here");
        }

        /** Where {@code region}'s copy is read, for the units whose home it is. */
        public Builder home(Region region, MergeDigests copy) {
            homes.put(Objects.requireNonNull(region, "region"), Objects.requireNonNull(copy, "copy"));
            return this;
        }

        /** Key ranges per unit and type (default 1024): more ranges, fewer rows read per differing range. */
        public Builder ranges(int ranges) {
            if (ranges < 1) {
                throw new IllegalArgumentException("ranges: " + ranges + " (expected: >= 1)");
            }
            this.ranges = ranges;
            return this;
        }

        /** How often each unit is compared (default 10 s): the bound on how long drift stays. */
        public Builder window(Duration window) {
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("window: " + window + " (expected: > 0)");
            }
            this.window = window;
            return this;
        }

        /** The clock that paces passes. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where the meters go. */
        public Builder registry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The reconciler; refuses a store other than {@code MergeStore.jdbc} and a missing registry. */
        public DigestReconciler build() {
            if (registry == null) {
                throw new IllegalStateException("registry: not set (expected: registry(MeterRegistry))");
            }
            if (homes.containsKey(store.region())) {
                throw new IllegalStateException("home: " + store.region() + " is this store's own region"
                                                + " (expected: other regions only)");
            }
            return new DigestReconciler(this);
        }
    }
}
