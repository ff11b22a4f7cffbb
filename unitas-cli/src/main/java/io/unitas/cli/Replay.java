package io.unitas.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

import io.unitas.config.UsersFile;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.RouteDecision;
import io.unitas.core.Topology;
import io.unitas.core.capacity.CapacityPlanner;
import io.unitas.core.capacity.Cascade;
import io.unitas.core.capacity.CascadeStep;
import io.unitas.core.capacity.LoadPlan;
import io.unitas.core.capacity.Placement;
import io.unitas.core.capacity.Spillover;
import io.unitas.core.capacity.UserLoad;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.RoutingSnapshot;

/**
 * Replays a users file through the route decision (optionally with the cascade and spillover of capacity
 * planning) and writes {@code user_id,home,target,reason} per user, in input order.
 *
 * <p>Plain routing streams: users with the same home get the same decision, so each home's output suffix is
 * encoded once and rows are copied from the input buffer to the output buffer as bytes. The cascade first sums
 * load per home in one pass, then streams the second pass under the cascade's final health. Spillover places
 * users individually, so it holds them in memory.
 */
final class Replay {

    private static final byte[] HEADER = "user_id,home,target,reason\n".getBytes(StandardCharsets.US_ASCII);
    private static final int REPORT_EVERY = 1 << 16;

    private final Topology topology;
    private final HealthSnapshot health;
    private final Path users;
    private final boolean cascade;
    private final boolean spillover;
    private final LongConsumer progress;
    private final List<String> regionIds;
    private final CapacityPlanner planner;
    private long progressBase;

    /** What a replay found: the summary's content. */
    record Result(long users, Map<String, Long> byReason, LoadPlan plan, List<CascadeStep> cascade) {}

    Replay(Topology topology, HealthSnapshot health, Path users, boolean cascade, boolean spillover,
           LongConsumer progress) {
        this.topology = topology;
        this.health = health;
        this.users = users;
        this.cascade = cascade;
        this.spillover = spillover;
        this.progress = progress;
        this.regionIds = topology.regions().stream().map(Region::id).toList();
        this.planner = CapacityPlanner.of(topology);
    }

    /** How many times the users file is read: the progress total is this times its size. */
    int passes() {
        return cascade && !spillover ? 2 : 1;
    }

    /** Writes the replay to {@code out} and returns the summary. @throws io.unitas.config.ConfigException */
    Result run(OutputStream out) throws IOException {
        if (spillover) {
            return spillover(out);
        }
        if (cascade) {
            Totals totals = new Totals(regionIds.size());
            try (UsersFile in = UsersFile.open(users, regionIds)) {
                while (in.next()) {
                    totals.add(in.home(), in.load());
                    report(in, totals.users);
                }
                progressBase += in.size();
            }
            Cascade c = planner.cascade(totals.loadByHome(regionIds), health);
            Result r = route(out, c.health());
            return new Result(r.users, r.byReason, r.plan, c.steps());
        }
        return route(out, health);
    }

    private Result route(OutputStream out, HealthSnapshot health) throws IOException {
        int n = regionIds.size();
        // The routing decision's region-level part per home, in the steady state (every healthy region admitted);
        // spillover places users by load, below, rather than by the bands of a key.
        RoutingSnapshot state = RoutingSnapshot.of(topology, null, health, WriteFences.none(), () -> 0L,
                                                   Long.MAX_VALUE, Duration.ZERO);
        RouteDecision[] decisions = new RouteDecision[n + 1];
        byte[][] suffix = new byte[n + 1][];
        for (int i = 0; i <= n; i++) {
            decisions[i] = i < n ? RoutingDecision.region(state, regionIds.get(i), null, false, ReadOnlyPolicy.FENCE,
                                                          Long.MAX_VALUE)
                                 : RouteDecision.unknownRegion("");
            suffix[i] = suffix(decisions[i].target(), decisions[i].outcome().reason());
        }
        Totals totals = new Totals(n);
        try (UsersFile in = UsersFile.open(users, regionIds); BlockWriter w = new BlockWriter(out)) {
            w.write(HEADER, 0, HEADER.length);
            while (in.next()) {
                int home = in.home() < 0 ? n : in.home();
                // "user_id,home" stands in the input exactly as the output wants it: one copy.
                w.write(in.buffer(), in.userIdStart(), in.homeEnd() - in.userIdStart());
                w.write(suffix[home], 0, suffix[home].length);
                totals.add(in.home(), in.load());
                report(in, totals.users);
            }
            w.finish();
        }
        Map<String, Long> byReason = reasons();
        for (int i = 0; i <= n; i++) {
            byReason.merge(decisions[i].outcome().reason(), totals.count[i], Long::sum);
        }
        return new Result(totals.users, byReason, planner.plan(totals.loadByHome(regionIds), health), List.of());
    }

    private Result spillover(OutputStream out) throws IOException {
        List<UserLoad> all = new ArrayList<>();
        try (UsersFile in = UsersFile.open(users, regionIds)) {
            while (in.next()) {
                all.add(new UserLoad(in.userId(), in.homeId(), in.load()));
                report(in, all.size());
            }
        }
        List<CascadeStep> steps = List.of();
        HealthSnapshot h = health;
        if (cascade) {
            Cascade c = planner.cascadeWithSpillover(all, health);
            steps = c.steps();
            h = c.health();
        }
        Spillover s = planner.spillover(all, h);
        Map<RouteDecision.Outcome, byte[]> noTarget = new EnumMap<>(RouteDecision.Outcome.class);
        Map<String, Long> byReason = reasons();
        try (BlockWriter w = new BlockWriter(out)) {
            w.write(HEADER, 0, HEADER.length);
            for (Placement p : s.placements()) {
                byte[] row = (p.userId() + ',' + p.home()).getBytes(StandardCharsets.UTF_8);
                byte[] end = p.target() == null ? noTarget.computeIfAbsent(p.outcome(), r -> suffix(null, r.reason()))
                                                : suffix(p.target(), p.outcome().reason());
                w.write(row, 0, row.length);
                w.write(end, 0, end.length);
                byReason.merge(p.outcome().reason(), 1L, Long::sum);
            }
            w.finish();
        }
        return new Result(all.size(), byReason, s.plan(), steps);
    }

    /** Every reason the mode can give, in a fixed order, counted from zero. */
    private Map<String, Long> reasons() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (RouteDecision.Outcome r : RouteDecision.Outcome.values()) {
            boolean spilloverOnly = r == RouteDecision.Outcome.SPILLOVER || r == RouteDecision.Outcome.OVERFLOW;
            // A replay routes users, not requests: the outcomes only writes can have never occur.
            boolean writeOnly = r == RouteDecision.Outcome.READ_ONLY || r == RouteDecision.Outcome.WRITE_FAILOVER;
            if ((spillover || !spilloverOnly) && !writeOnly) {
                m.put(r.reason(), 0L);
            }
        }
        return m;
    }

    private static byte[] suffix(Region target, String reason) {
        return ("," + (target == null ? "" : target.id()) + "," + reason + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private void report(UsersFile in, long rows) {
        if ((rows & (REPORT_EVERY - 1)) == 0) {
            progress.accept(progressBase + in.bytesRead());
        }
    }

    /** Users and load per home index; the last slot is for unknown homes. */
    private static final class Totals {
        final long[] count;
        final double[] load;
        long users;

        Totals(int regions) {
            count = new long[regions + 1];
            load = new double[regions + 1];
        }

        void add(int home, double userLoad) {
            int i = home < 0 ? count.length - 1 : home;
            count[i]++;
            load[i] += userLoad;
            users++;
        }

        Map<String, Double> loadByHome(List<String> regionIds) {
            Map<String, Double> m = new LinkedHashMap<>();
            for (int i = 0; i < regionIds.size(); i++) {
                m.put(regionIds.get(i), load[i]);
            }
            return m;
        }
    }
}
