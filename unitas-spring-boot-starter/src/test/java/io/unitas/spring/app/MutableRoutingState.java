package io.unitas.spring.app;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.unitas.client.RoutingSnapshot;
import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;
import io.unitas.spring.UnitasRoutingState;

/**
 * The test files' routing state, with health, fences and units' homes a test may change, as a control plane's watch
 * would.
 */
public final class MutableRoutingState implements UnitasRoutingState {

    private static final Path DIR = Path.of("src/test/resources/unitas");

    private final UnitRules rules;
    private final HealthSnapshot allHealthy;
    private final AtomicReference<RoutingSnapshot> current;

    public MutableRoutingState() {
        Topology topology = TopologyFile.read(DIR.resolve("topology.yaml"));
        rules = UnitRulesFile.read(DIR.resolve("rules.yaml"), topology);
        allHealthy = HealthFile.read(DIR.resolve("health.json"), topology);
        current = new AtomicReference<>(RoutingSnapshot.of(rules, allHealthy, WriteFences.none()));
    }

    @Override
    public RoutingSnapshot current() {
        return current.get();
    }

    /** Fences {@code unit}'s writes ({@code null}: lifts every fence). */
    public void fence(String unit, FencePolicy policy) {
        WriteFences fences = unit == null ? WriteFences.none() : WriteFences.of(Map.of(unit, policy));
        current.set(current.get().next(current.get().rules(), current.get().health(), fences, System::nanoTime));
    }

    /** Marks {@code region} down ({@code null}: every region healthy again). */
    public void down(String region) {
        HealthSnapshot health = region == null ? allHealthy
                : allHealthy.with(1, Region.of(region), RegionHealth.down());
        current.set(current.get().next(current.get().rules(), health, current.get().fences(), System::nanoTime));
    }

    /** Makes {@code region} the home of {@code unit}, as a switchover would ({@code null}: every unit back home). */
    public void move(String unit, String region) {
        RoutingSnapshot now = current.get();
        UnitRules moved = unit == null ? rules : rules.remap(Map.of(unit, region));
        current.set(now.next(moved, now.health(), now.fences(), System::nanoTime));
    }
}
