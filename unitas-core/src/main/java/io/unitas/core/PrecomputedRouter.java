package io.unitas.core;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Router} that builds every decision of every known home up front, so that routing only looks up. It
 * also remembers the decisions of every home under the last snapshot it saw (by identity) for as long as no
 * region's hold-down ends: requests arrive in long runs against one snapshot, and for those a decision costs one
 * map lookup, a comparison of times and one array read.
 */
final class PrecomputedRouter implements Router {

    private static final int READ = 0;
    private static final int WRITE_FENCE = 1;
    private static final int WRITE_FAILOVER = 2;

    private final Topology topology;
    private final Duration holdDown;
    private final long holdDownMs;
    private final List<Region> regions;
    private final Map<String, Plan> plans;
    private final Plan[] byIndex;
    // An immutable value swapped whole, so readers on other threads see a snapshot with its own decisions.
    private volatile Memo memo = new Memo(null, 1, 0, new RouteDecision[3][0]);

    PrecomputedRouter(Topology topology, Duration holdDown) {
        if (holdDown.isNegative()) {
            throw new IllegalArgumentException("hold_down: " + holdDown + " (expected: >= 0)");
        }
        this.topology = topology;
        this.holdDown = holdDown;
        this.holdDownMs = holdDown.toMillis();
        this.regions = topology.regions();
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < regions.size(); i++) {
            index.put(regions.get(i).id(), i);
        }
        Map<String, Plan> byId = new HashMap<>();
        this.byIndex = new Plan[regions.size()];
        for (int i = 0; i < byIndex.length; i++) {
            Region home = regions.get(i);
            byIndex[i] = new Plan(i, home, topology.fallback(home), index);
            byId.put(home.id(), byIndex[i]);
        }
        // A HashMap, not Map.copyOf: its lookup masks the hash where the immutable map computes a floorMod.
        this.plans = byId;
    }

    @Override
    public Topology topology() {
        return topology;
    }

    @Override
    public Duration holdDown() {
        return holdDown;
    }

    @Override
    public RouteDecision route(String homeId, HealthSnapshot health, long nowMs) {
        return decide(READ, homeId, health, nowMs);
    }

    @Override
    public RouteDecision routeWrite(String homeId, HealthSnapshot health, long nowMs, ReadOnlyPolicy policy) {
        return decide(policy == ReadOnlyPolicy.FAILOVER ? WRITE_FAILOVER : WRITE_FENCE, homeId, health, nowMs);
    }

    private RouteDecision decide(int kind, String homeId, HealthSnapshot health, long nowMs) {
        Plan plan = homeId == null ? null : plans.get(homeId);
        if (plan == null) {
            return RouteDecision.unknownRegion(String.valueOf(homeId));
        }
        Memo m = memo;
        if (m.health != health || nowMs < m.from || nowMs > m.until) {
            m = compute(health, nowMs);
            memo = m;
        }
        return m.decisions[kind][plan.index];
    }

    /** Every home's decisions under {@code health} at {@code nowMs}, valid until the next hold-down ends. */
    private Memo compute(HealthSnapshot health, long nowMs) {
        int n = regions.size();
        boolean[] admitted = new boolean[n];
        boolean[] writable = new boolean[n];
        long until = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            RegionHealth h = health.regions().get(regions.get(i));
            if (h == null || !h.healthy()) {
                continue;
            }
            admitted[i] = h.admitted(nowMs, holdDownMs);
            writable[i] = h.writable();
            if (!admitted[i]) { // held down: the decisions change when its hold-down ends
                until = Math.min(until, h.healthySinceMs() + holdDownMs - 1);
            }
        }
        RouteDecision[][] decisions = new RouteDecision[3][n];
        for (Plan p : byIndex) {
            decisions[READ][p.index] = p.read(admitted);
            decisions[WRITE_FENCE][p.index] = p.write(admitted, writable, false);
            decisions[WRITE_FAILOVER][p.index] = p.write(admitted, writable, true);
        }
        return new Memo(health, nowMs, until, decisions);
    }

    /** The decisions of every home, by kind and topology index, under one snapshot from {@code from} to {@code until}. */
    private record Memo(HealthSnapshot health, long from, long until, RouteDecision[][] decisions) {}

    @Override
    public String toString() {
        return "Router{" + topology + (holdDownMs == 0 ? "" : ", hold_down=" + holdDown) + '}';
    }

    /** The precomputed decisions of one home region: its candidates are the home, then its fallback list. */
    private static final class Plan {
        private final int index;
        private final int[] candidates;
        private final RouteDecision[] read;
        private final RouteDecision[] readOnly;
        private final RouteDecision[] writeFailover;
        private final RouteDecision nowhere;

        Plan(int index, Region home, List<Region> fallback, Map<String, Integer> regionIndex) {
            this.index = index;
            int n = fallback.size() + 1;
            this.candidates = new int[n];
            this.read = new RouteDecision[n];
            this.readOnly = new RouteDecision[n];
            this.writeFailover = new RouteDecision[n];
            for (int c = 0; c < n; c++) {
                Region r = c == 0 ? home : fallback.get(c - 1);
                candidates[c] = regionIndex.get(r.id());
                read[c] = c == 0 ? RouteDecision.home(home) : RouteDecision.failover(home, r);
                readOnly[c] = new RouteDecision(RouteDecision.Outcome.READ_ONLY, home.id(), r);
                writeFailover[c] = new RouteDecision(RouteDecision.Outcome.WRITE_FAILOVER, home.id(), r);
            }
            this.nowhere = RouteDecision.noHealthyRegion(home);
        }

        /** The first admitted candidate, or -1. */
        private int first(boolean[] admitted) {
            for (int c = 0; c < candidates.length; c++) {
                if (admitted[candidates[c]]) {
                    return c;
                }
            }
            return -1;
        }

        RouteDecision read(boolean[] admitted) {
            int c = first(admitted);
            return c < 0 ? nowhere : read[c];
        }

        RouteDecision write(boolean[] admitted, boolean[] writable, boolean failover) {
            int c = first(admitted);
            if (c < 0) {
                return nowhere;
            }
            if (writable[candidates[c]]) {
                return read[c];
            }
            if (failover) {
                for (int w = c + 1; w < candidates.length; w++) {
                    if (admitted[candidates[w]] && writable[candidates[w]]) {
                        return writeFailover[w];
                    }
                }
            }
            return readOnly[c];
        }
    }
}
