package io.unitas.core.consistency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

import io.unitas.core.Region;
import io.unitas.core.ServiceKind;
import io.unitas.core.Topology;

/**
 * The consistency check: every {@link Rule} a {@link ConsistencyContract} breaks against a topology, the units' homes
 * and, when given, the measured replication lag. A pure function of its inputs; the contract must be free of
 * {@linkplain ConsistencyContract#problems problems} first.
 *
 * <p>Failover, spillover and promotion all move a unit along its home's fallback list (the explicit one, or every
 * other region in the topology's order), so residency is checked on the fallback list of every region a unit or an
 * entity's data may be homed in.
 *
 * <pre>
 * List&lt;Violation&gt; found = ConsistencyCheck.check(contract, ConsistencyCheck.Environment.of(topology,
 *         Locator.of("topology.yaml"), homes, Optional.of(lag)));
 * </pre>
 */
public final class ConsistencyCheck {

    /**
     * What the contract is checked against.
     *
     * @param topology   the regions, their fallback lists and the center
     * @param topologyAt where a path of the topology's document is written (to point at a fallback list's line)
     * @param unitHomes  every unit's home region, from the unit rules
     * @param lag        the measured replication lag; empty when none was given, and the staleness rule is skipped
     */
    public record Environment(Topology topology, Locator topologyAt, Map<String, Region> unitHomes,
                              Optional<MeasuredLag> lag) {

        /** Requires every part; copies the homes. */
        public Environment {
            Objects.requireNonNull(topology, "topology");
            Objects.requireNonNull(topologyAt, "topologyAt");
            Objects.requireNonNull(lag, "lag");
            unitHomes = Map.copyOf(unitHomes);
        }

        /** Shorthand for the constructor. */
        public static Environment of(Topology topology, Locator topologyAt, Map<String, Region> unitHomes,
                                     Optional<MeasuredLag> lag) {
            return new Environment(topology, topologyAt, unitHomes, lag);
        }
    }

    private ConsistencyCheck() {}

    /** Every violation of {@code contract} in {@code env}, declarations first (in order), then units. */
    public static List<Violation> check(ConsistencyContract contract, Environment env) {
        List<Violation> out = new ArrayList<>();
        for (Declaration d : contract.declarations()) {
            declaration(d, contract, env, out);
        }
        for (UnitResidency u : contract.unitResidencies()) {
            ResidencyGroup group = contract.group(u.group());
            Region home = env.unitHomes().get(u.unit());
            if (group == null || home == null) {
                continue; // a contract problem, reported before the check
            }
            String subject = "unit " + u.unit();
            if (!group.allows(home)) {
                out.add(new Violation(Rule.RESIDENCY_HOME, u.where(), subject + " is homed in " + home
                                                                      + ", outside " + group));
            } else {
                fallback(subject, home, group, u.where(), env, out);
            }
        }
        return out;
    }

    /**
     * Whether moving {@code unit} from its home {@code from} to {@code to} (a switchover or a promotion) would place
     * it outside a residency group: its own ({@code units:}), or that of a core entity whose group holds {@code from}
     * (the entity's records of the unit's users stay in the group). The first such group's violation, of
     * {@link Rule#RESIDENCY_HOME}, located where the group is claimed; empty when the move is allowed.
     */
    public static Optional<Violation> move(ConsistencyContract contract, String unit, Region from, Region to) {
        for (UnitResidency u : contract.unitResidencies()) {
            ResidencyGroup group = contract.group(u.group());
            if (u.unit().equals(unit) && group != null && !group.allows(to)) {
                return Optional.of(new Violation(Rule.RESIDENCY_HOME, u.where(), "moving unit " + unit + " from "
                                                 + from + " to " + to + " would place it outside " + group));
            }
        }
        for (Declaration d : contract.declarations()) {
            ResidencyGroup group = d.residency() == null ? null : contract.group(d.residency());
            if (d.kind() == ServiceKind.CORE && group != null && group.allows(from) && !group.allows(to)) {
                return Optional.of(new Violation(Rule.RESIDENCY_HOME, d.at("residency"), "moving unit " + unit
                                                 + " from " + from + " to " + to + " would place " + d.name()
                                                 + " outside " + group));
            }
        }
        return Optional.empty();
    }

    private static void declaration(Declaration d, ConsistencyContract contract, Environment env,
                                    List<Violation> out) {
        String subject = d.name();
        if (d.moneyOrLegal() && d.level() != ConsistencyLevel.STRONG) {
            out.add(new Violation(Rule.MONEY_STRONG, d.at("consistency"), subject + " handles money or legal "
                    + "records but is " + d.level().label() + " (expected: strong)"));
        }
        if (d.moneyOrLegal() && d.writes() == WriteScope.ANY) {
            out.add(new Violation(Rule.MONEY_ONE_WRITER, d.at("writes"), subject + " handles money or legal records "
                    + "but is written in any region (expected: writes: " + WriteScope.defaultFor(d.kind()).label()
                    + ")"));
        }
        if (d.level() == ConsistencyLevel.EVENTUAL && d.merge() == null && !d.idempotent()) {
            out.add(new Violation(Rule.EVENTUAL_CONVERGES, d.at("consistency"), subject + " is eventual with neither "
                    + "a merge policy nor idempotent operations (expected: merge, or idempotent: true)"));
        }
        if (d.writes() == WriteScope.ANY && d.merge() == null) {
            out.add(new Violation(Rule.MULTI_WRITER_MERGE, d.at("writes"), subject + " is written in any region "
                    + "without a merge policy, so concurrent versions have no resolution (expected: merge: lww, "
                    + "pn-counter, or-set, or-map or siblings)"));
        }
        if (d.level() == ConsistencyLevel.BOUNDED_STALENESS && env.lag().isPresent()) {
            env.lag().get().over(d.budget()).ifPresent(s -> out.add(
                    new Violation(Rule.STALENESS_BUDGET, d.at("staleness_budget"), subject + " promises reads at "
                            + "most " + millis(d.budget()) + " stale, but " + s.what() + " lags " + s.lagMs()
                            + " ms (expected: a budget of at least " + s.lagMs() + " ms)")));
        }
        if (d.kind() == ServiceKind.SHARED && d.writes() != WriteScope.CENTER) {
            out.add(new Violation(Rule.SHARED_WRITES_CENTER, d.at("writes"), subject + " is shared (a replica of "
                    + "global data) but is written " + (d.writes() == WriteScope.HOME ? "at each unit's home"
                                                                                      : "in any region")
                    + " (expected: writes: center, through the global service)"));
        }
        Optional<Region> center = env.topology().center();
        if (d.kind() == ServiceKind.GLOBAL) {
            if (center.isEmpty()) {
                out.add(new Violation(Rule.GLOBAL_IN_CENTER, d.at("kind"), subject + " is global but the topology "
                        + "names no center (expected: center: REGION in the topology)"));
            } else if (d.region() != null && !d.region().equals(center.get())) {
                out.add(new Violation(Rule.GLOBAL_IN_CENTER, d.at("region"), subject + " is global but declared in "
                        + d.region() + ", not in the center " + center.get() + " (expected: region: " + center.get()
                        + ")"));
            } else if (d.writes() != WriteScope.CENTER) {
                out.add(new Violation(Rule.GLOBAL_IN_CENTER, d.at("writes"), subject + " is global but written "
                        + (d.writes() == WriteScope.HOME ? "at each unit's home" : "in any region")
                        + " (expected: writes: center)"));
            }
        }
        ResidencyGroup group = d.residency() == null ? null : contract.group(d.residency());
        if (group != null) {
            residency(d, group, env, out);
        }
    }

    /** Where each kind keeps its data: core in every home of the group, global in the center, shared everywhere. */
    private static void residency(Declaration d, ResidencyGroup group, Environment env, List<Violation> out) {
        Location at = d.at("residency");
        Topology topology = env.topology();
        switch (d.kind()) {
            case CORE -> {
                // The entity's records of users homed inside the group stay there; any region of the group may
                // become such a home, so each one's fallback list must stay inside too.
                for (Region home : topology.regions()) {
                    if (group.allows(home)) {
                        fallback(d.name(), home, group, at, env, out);
                    }
                }
            }
            case GLOBAL -> topology.center().ifPresent(c -> {
                if (!group.allows(c)) {
                    out.add(new Violation(Rule.RESIDENCY_HOME, at, d.name() + " is global, kept in the center " + c
                                                                  + ", outside " + group));
                } else {
                    fallback(d.name(), c, group, at, env, out);
                }
            });
            case SHARED -> {
                List<Region> outside = topology.regions().stream().filter(r -> !group.allows(r)).toList();
                if (!outside.isEmpty()) {
                    out.add(new Violation(Rule.RESIDENCY_HOME, at, d.name() + " is shared, replicated to every "
                            + "region, including " + joined(outside) + " outside " + group));
                }
            }
        }
    }

    /** A violation for each region of {@code home}'s fallback list outside {@code group}. */
    private static void fallback(String subject, Region home, ResidencyGroup group, Location declared,
                                 Environment env, List<Violation> out) {
        Topology topology = env.topology();
        List<Region> list = topology.fallback(home);
        boolean explicit = topology.explicitFallbacks().containsKey(home);
        if (explicit) {
            for (int i = 0; i < list.size(); i++) {
                Region r = list.get(i);
                if (!group.allows(r)) {
                    out.add(new Violation(Rule.RESIDENCY_FALLBACK,
                            env.topologyAt().at("fallback." + home.id() + "[" + i + "]"),
                            "fallback of " + home + " lists " + r + ": failover, spillover or promotion could place "
                            + subject + " (" + group.name() + ", declared at " + declared + ") outside " + group));
                }
            }
            return;
        }
        List<Region> outside = list.stream().filter(r -> !group.allows(r)).toList();
        if (!outside.isEmpty()) {
            out.add(new Violation(Rule.RESIDENCY_FALLBACK, declared, subject + " may be homed in " + home + ", which "
                    + "has no fallback list, so failover, spillover or promotion could place it in " + joined(outside)
                    + ", outside " + group + " (expected: fallback: {" + home + ": [only regions of "
                    + group.name() + "]} in the topology)"));
        }
    }

    private static String joined(List<Region> regions) {
        return regions.stream().map(Region::id).collect(Collectors.joining(", "));
    }

    private static String millis(Duration d) {
        return d.toMillis() + " ms";
    }
}
