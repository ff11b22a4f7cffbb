package io.unitas.client;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

import io.unitas.core.Region;
import io.unitas.core.ServiceKind;
import io.unitas.core.rules.Unit;

/** {@link InstanceSelector} over the core's {@link ServiceKind#place placement}. */
final class RegionInstanceSelector implements InstanceSelector {

    private final String self;
    private final Supplier<RoutingSnapshot> state;
    private final Clock clock;

    RegionInstanceSelector(String self, Supplier<RoutingSnapshot> state, Clock clock) {
        this.self = Objects.requireNonNull(self, "self");
        this.state = Objects.requireNonNull(state, "state");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String self() {
        return self;
    }

    @Override
    public <T> InstanceSelection<T> select(List<T> instances, Function<? super T, Map<String, String>> metadata,
                                           RoutingContext context, ServiceKind kind, boolean write) {
        if (!anyCarriesRegion(instances, metadata)) {
            return new InstanceSelection<>(instances, null, "no instance carries " + REGION + ": not unit-aware");
        }
        RoutingSnapshot s = state.get();
        Unit unit = context.unit() == null ? null : s.rules().unit(context.unit());
        String home = unit != null ? unit.home().id() : context.region() != null ? context.region() : self;
        ServiceKind.Placement placement = kind.place(s.router(), s.health(), clock.millis(), home, self, write);
        for (Region region : placement.regions()) {
            List<T> here = new ArrayList<>();
            for (T instance : instances) {
                Map<String, String> m = metadata.apply(instance);
                String dedicated = m.get(UNIT);
                if (region.id().equals(m.get(REGION))
                    && (dedicated == null || kind != ServiceKind.CORE || dedicated.equals(context.unit()))) {
                    here.add(instance);
                }
            }
            if (!here.isEmpty()) {
                return new InstanceSelection<>(version(here, metadata, context.version()), region.id(),
                                               placement.message());
            }
        }
        return new InstanceSelection<>(List.of(), null, placement.allowed()
                ? "no instance in " + placement.regions() + " (" + placement.message() + ")"
                : placement.message());
    }

    private static <T> boolean anyCarriesRegion(List<T> instances, Function<? super T, Map<String, String>> metadata) {
        for (T instance : instances) {
            if (metadata.apply(instance).get(REGION) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * The instances of {@code version} when there are any; without a version (or none of it), the instances that
     * carry no version, so a gray release takes only the requests its rules pick; all when every instance has one.
     */
    private static <T> List<T> version(List<T> here, Function<? super T, Map<String, String>> metadata,
                                       String version) {
        List<T> picked = new ArrayList<>();
        if (version != null) {
            for (T i : here) {
                if (version.equals(metadata.apply(i).get(VERSION))) {
                    picked.add(i);
                }
            }
            if (!picked.isEmpty()) {
                return picked;
            }
        }
        for (T i : here) {
            if (metadata.apply(i).get(VERSION) == null) {
                picked.add(i);
            }
        }
        return picked.isEmpty() ? here : picked;
    }
}
