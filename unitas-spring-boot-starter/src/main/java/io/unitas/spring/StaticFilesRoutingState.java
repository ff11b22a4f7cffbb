package io.unitas.spring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.client.RoutingSnapshot;
import io.unitas.config.ConfigException;
import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;
import org.springframework.core.io.ResourceLoader;

/** Routing state read once at start from the files {@code unitas.*} names; no fences (those come from a control plane). */
final class StaticFilesRoutingState implements UnitasRoutingState {

    private final RoutingSnapshot snapshot;

    StaticFilesRoutingState(UnitasProperties properties, ResourceLoader loader) {
        List<String> problems = new ArrayList<>();
        Topology topology = null;
        UnitRules rules = null;
        HealthSnapshot health = null;
        try {
            topology = TopologyFile.parse(UnitasFiles.read(loader, "unitas.topology", properties.getTopology()));
            if (topology.region(properties.getRegion()).isEmpty()) {
                problems.add("unitas.region: '" + properties.getRegion() + "' (expected: one of "
                             + topology.regions().stream().map(Region::id).toList() + ", the regions of "
                             + properties.getTopology() + ")");
            }
            rules = UnitRulesFile.parse(UnitasFiles.read(loader, "unitas.rules", properties.getRules()), topology);
            health = properties.getHealth() == null || properties.getHealth().isBlank() ? allHealthy(topology)
                    : HealthFile.parse(UnitasFiles.read(loader, "unitas.health", properties.getHealth()), topology);
        } catch (ConfigException bad) {
            problems.addAll(bad.problems());
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        this.snapshot = RoutingSnapshot.of(rules, health, WriteFences.none());
    }

    @Override
    public RoutingSnapshot current() {
        return snapshot;
    }

    private static HealthSnapshot allHealthy(Topology topology) {
        Map<Region, RegionHealth> up = new LinkedHashMap<>();
        topology.regions().forEach(r -> up.put(r, RegionHealth.up()));
        return HealthSnapshot.of(up);
    }
}
