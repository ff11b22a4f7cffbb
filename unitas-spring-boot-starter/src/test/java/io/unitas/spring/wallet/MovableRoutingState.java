package io.unitas.spring.wallet;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.unitas.client.RoutingSnapshot;
import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;
import io.unitas.spring.UnitasRoutingState;

/** The test files' routing state, whose units a test moves to another home as a switchover would. */
public final class MovableRoutingState implements UnitasRoutingState {

    private static final Path DIR = Path.of("src/test/resources/unitas");

    private final UnitRules rules;
    private final AtomicReference<RoutingSnapshot> current;

    public MovableRoutingState() {
        Topology topology = TopologyFile.read(DIR.resolve("topology.yaml"));
        rules = UnitRulesFile.read(DIR.resolve("rules.yaml"), topology);
        current = new AtomicReference<>(RoutingSnapshot.of(rules, HealthFile.read(DIR.resolve("health.json"),
                                                                                  topology), WriteFences.none()));
    }

    @Override
    public RoutingSnapshot current() {
        return current.get();
    }

    /** Makes {@code region} the home of {@code unit}. */
    public void move(String unit, String region) {
        RoutingSnapshot now = current.get();
        current.set(now.next(rules.remap(Map.of(unit, region)), now.health(), now.fences(), System::nanoTime));
    }

    /** Every unit back at the home the rules file gives it. */
    public void reset() {
        RoutingSnapshot now = current.get();
        current.set(now.next(rules, now.health(), now.fences(), System::nanoTime));
    }
}
