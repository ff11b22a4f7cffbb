package io.unitas.core.switchover;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.health.HealthReport;

/**
 * What the control plane does by itself when a region stays unable to take writes (read-only, or unreachable):
 * per group of units, nothing ({@link Mode#OFF}), move them ({@link Mode#AUTOMATIC}) or propose the move to an
 * operator ({@link Mode#ASK}). A move goes to the first region of the home's fallback order that is healthy and
 * writable; it is a switchover that waits on the units' measured lag while the old home still reports it (it can
 * still ship), and a promotion with a stated RPO once {@link Group#promoteAfter()} has passed (the old home cannot
 * ship, or its backlog is stuck). A unit belongs to the first group that covers it; a unit no group covers is off.
 *
 * @param groups the groups, in order
 */
public record FailoverPolicy(List<Group> groups) {

    /** No group: nothing moves by itself. */
    public static final FailoverPolicy NONE = new FailoverPolicy(List.of());

    /** Freezes the groups. */
    public FailoverPolicy {
        groups = List.copyOf(groups);
    }

    /** What a group does about a lasting fault of its units' home. */
    public enum Mode {
        /** Nothing: writes stay refused until the home recovers or an operator acts. */
        OFF,
        /** The control plane starts the move itself. */
        AUTOMATIC,
        /** The control plane records a proposal that an operator accepts ({@code unitas ctl accept}). */
        ASK;

        /** The lowercase name used in documents ({@code automatic}). */
        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The mode named {@code name} in a document, as {@link #jsonName()} writes it. */
        public static Mode fromJson(String name) {
            return valueOf(name.toUpperCase(Locale.ROOT));
        }
    }

    /**
     * One group of units and what happens to them.
     *
     * @param name         names the group in audit lines and proposals
     * @param units        the units it covers; empty when it covers a home's units
     * @param home         with no units: it covers every unit whose home is this region; null with units
     * @param mode         what it does
     * @param after        how long the home must stay unwritable or unreachable before its units move
     * @param promoteAfter how long before they move without waiting on lag, with their RPO recorded; null: never
     *                     by itself
     * @param timeout      the deadline of each switchover it starts, from its start
     */
    public record Group(String name, List<String> units, Region home, Mode mode, Duration after,
                        Duration promoteAfter, Duration timeout) {

        /** Requires a name, a mode, positive durations and exactly one of units and home. */
        public Group {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(after, "after");
            Objects.requireNonNull(timeout, "timeout");
            units = List.copyOf(units);
            if (units.isEmpty() == (home == null)) {
                throw new IllegalArgumentException("group " + name + ": " + (home == null ? "no units and no home"
                        : "both units and home") + " (expected: one of units or home)");
            }
            if (after.isNegative() || timeout.isNegative() || timeout.isZero()
                || promoteAfter != null && promoteAfter.isNegative()) {
                throw new IllegalArgumentException("group " + name + ": after " + after + ", promote_after "
                        + promoteAfter + ", timeout " + timeout + " (expected: after, promote_after >= 0, timeout > 0)");
            }
        }

        /** Whether this group covers {@code unit}, whose home is {@code unitHome}. */
        public boolean covers(String unit, Region unitHome) {
            return home == null ? units.contains(unit) : home.equals(unitHome);
        }
    }

    /**
     * One move the policy calls for.
     *
     * @param group   the group's name
     * @param mode    automatic (start it) or ask (propose it)
     * @param from    the faulted home
     * @param to      the new home
     * @param units   the units moving, in the rules' order
     * @param promote whether they move without waiting on lag
     * @param why     what was seen ({@code "cn unwritable since …, 30 s >= after 30 s"})
     */
    public record Move(String group, Mode mode, Region from, Region to, List<String> units, boolean promote,
                       String why) {

        /** Freezes the units. */
        public Move {
            units = List.copyOf(units);
        }
    }

    /**
     * Problems of this policy against a topology and the rules' units, with paths ({@code groups[1].home}): unknown
     * units or regions, and names given twice.
     */
    public List<Problem> problems(Topology topology, Set<String> knownUnits) {
        List<Problem> problems = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < groups.size(); i++) {
            Group g = groups.get(i);
            String path = "groups[" + i + "]";
            if (!names.add(g.name())) {
                problems.add(new Problem(path + ".name", "'" + g.name() + "' given twice (expected: unique names)"));
            }
            if (g.home() != null && !topology.contains(g.home())) {
                problems.add(new Problem(path + ".home", "unknown region '" + g.home() + "'"));
            }
            for (int u = 0; u < g.units().size(); u++) {
                if (!knownUnits.contains(g.units().get(u))) {
                    problems.add(new Problem(path + ".units[" + u + "]", "unknown unit '" + g.units().get(u) + "'"));
                }
            }
        }
        return problems;
    }

    /**
     * The moves due at {@code now}, one per group and faulted home: the units the group covers whose home has been
     * unwritable or unreachable for at least {@code after}. A promotion once {@code promoteAfter} has passed; before
     * then a switchover if the home still reports the units' lag to the target ({@link MovingLag#known()}), else
     * nothing yet: a switchover flips only on a measured lag, so without one it would fence the units' writes until
     * its deadline and roll back. Nothing for a home with no healthy, writable region in its fallback order.
     *
     * @param homes        every unit's current home, in the rules' order
     * @param faultedSince per region, since when it has been unwritable or unreachable; absent when it is fine
     * @param trusted      a region's last report while it is fresh (it is reachable and can ship), else empty
     * @param lagMaxAge    a unit's lag measured longer ago than this is unknown, as a switchover reads it
     */
    public List<Move> due(Topology topology, HealthSnapshot health, Map<String, Region> homes,
                          Map<Region, Instant> faultedSince, Function<Region, Optional<HealthReport>> trusted,
                          Duration lagMaxAge, Instant now) {
        Map<List<Object>, List<String>> byGroupAndHome = new LinkedHashMap<>();
        homes.forEach((unit, home) -> {
            for (Group g : groups) {
                if (g.covers(unit, home)) {
                    if (g.mode() != Mode.OFF && faultedSince.containsKey(home)) {
                        byGroupAndHome.computeIfAbsent(List.of(g, home), k -> new ArrayList<>()).add(unit);
                    }
                    return;
                }
            }
        });
        List<Move> moves = new ArrayList<>();
        byGroupAndHome.forEach((key, units) -> {
            Group g = (Group) key.get(0);
            Region home = (Region) key.get(1);
            Duration faulted = Duration.between(faultedSince.get(home), now);
            if (faulted.compareTo(g.after()) < 0) {
                return;
            }
            Region target = topology.fallback(home).stream()
                    .filter(r -> health.isHealthy(r) && health.get(r).writable()).findFirst().orElse(null);
            if (target == null) {
                return;
            }
            boolean promote = g.promoteAfter() != null && faulted.compareTo(g.promoteAfter()) >= 0;
            Map<String, Region> origins = new LinkedHashMap<>();
            units.forEach(u -> origins.put(u, home));
            if (!promote && !MovingLag.of(units, origins, target, trusted, now, lagMaxAge).known()) {
                return;
            }
            String why = home + (trusted.apply(home).isPresent() ? " unwritable" : " unreachable") + " since "
                    + faultedSince.get(home) + " (" + faulted.toMillis() + " ms >= " + (promote
                    ? "promote_after " + g.promoteAfter().toMillis() : "after " + g.after().toMillis()) + " ms)";
            moves.add(new Move(g.name(), g.mode(), home, target, units, promote, why));
        });
        return moves;
    }
}
