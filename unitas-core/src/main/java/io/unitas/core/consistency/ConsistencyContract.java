package io.unitas.core.consistency;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.unitas.core.Region;
import io.unitas.core.Topology;

/**
 * Every declaration of a project, from one or more files: services and entities, residency groups, and the units that
 * belong to a residency group. {@link #problems} finds what makes it uncheckable; {@link ConsistencyCheck} the rules
 * it breaks.
 *
 * @param declarations    services and entities, in file order
 * @param groups          residency groups
 * @param unitResidencies units that declare a residency group
 */
public record ConsistencyContract(List<Declaration> declarations, List<ResidencyGroup> groups,
                                  List<UnitResidency> unitResidencies) {

    /** Copies the lists. */
    public ConsistencyContract {
        declarations = List.copyOf(declarations);
        groups = List.copyOf(groups);
        unitResidencies = List.copyOf(unitResidencies);
    }

    /** The contracts of several files as one, in the order given. */
    public static ConsistencyContract merge(List<ConsistencyContract> parts) {
        List<Declaration> d = new ArrayList<>();
        List<ResidencyGroup> g = new ArrayList<>();
        List<UnitResidency> u = new ArrayList<>();
        for (ConsistencyContract c : parts) {
            d.addAll(c.declarations);
            g.addAll(c.groups);
            u.addAll(c.unitResidencies);
        }
        return new ConsistencyContract(d, g, u);
    }

    /** The group named {@code name}, or {@code null}. */
    public ResidencyGroup group(String name) {
        for (ResidencyGroup g : groups) {
            if (g.name().equals(name)) {
                return g;
            }
        }
        return null;
    }

    /**
     * Every reason the contract cannot be checked against {@code topology} and the unit rules' {@code units}: a name
     * or group given twice, a residency group nobody declared, a region the topology lacks, a unit the rules lack.
     */
    public List<ContractProblem> problems(Topology topology, Set<String> units) {
        List<ContractProblem> problems = new ArrayList<>();
        Map<String, Location> names = new HashMap<>();
        for (Declaration d : declarations) {
            Location first = names.putIfAbsent(d.name(), d.where());
            if (first != null) {
                problems.add(new ContractProblem(d.where(), "'" + d.name() + "' declared twice (first at " + first
                                                            + ")"));
            }
            if (d.residency() != null && group(d.residency()) == null) {
                problems.add(new ContractProblem(d.at("residency"), unknownGroup(d.residency())));
            }
            if (d.region() != null && !topology.contains(d.region())) {
                problems.add(new ContractProblem(d.at("region"), "unknown region '" + d.region() + "'"
                                                                 + expected(topology)));
            }
        }
        Map<String, Location> groupNames = new HashMap<>();
        for (ResidencyGroup g : groups) {
            Location first = groupNames.putIfAbsent(g.name(), g.where());
            if (first != null) {
                problems.add(new ContractProblem(g.where(), "residency group '" + g.name()
                                                            + "' declared twice (first at " + first + ")"));
            }
            for (int i = 0; i < g.regions().size(); i++) {
                Region r = g.regions().get(i);
                if (!topology.contains(r)) {
                    Location w = g.where();
                    problems.add(new ContractProblem(new Location(w.file(), w.line(), w.path() + "[" + i + "]"),
                                                     "unknown region '" + r + "'" + expected(topology)));
                }
            }
        }
        Map<String, Location> unitNames = new HashMap<>();
        for (UnitResidency u : unitResidencies) {
            Location first = unitNames.putIfAbsent(u.unit(), u.where());
            if (first != null) {
                problems.add(new ContractProblem(u.where(), "unit '" + u.unit() + "' given twice (first at " + first
                                                            + ")"));
            }
            if (!units.contains(u.unit())) {
                problems.add(new ContractProblem(u.where(), "unknown unit '" + u.unit() + "' (expected one of: "
                                                            + String.join(", ", units.stream().sorted().toList())
                                                            + ")"));
            }
            if (group(u.group()) == null) {
                problems.add(new ContractProblem(u.where(), unknownGroup(u.group())));
            }
        }
        return problems;
    }

    private String unknownGroup(String name) {
        return "unknown residency group '" + name + "' (expected: "
               + (groups.isEmpty() ? "a group declared under residency; none is"
                                   : "one of " + String.join(", ", groups.stream().map(ResidencyGroup::name).toList()))
               + ")";
    }

    private static String expected(Topology topology) {
        return " (expected one of: " + String.join(", ", topology.regions().stream().map(Region::id).toList()) + ")";
    }
}
