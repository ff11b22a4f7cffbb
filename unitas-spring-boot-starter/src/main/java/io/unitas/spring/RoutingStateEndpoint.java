package io.unitas.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.unitas.client.RoutingSnapshot;
import io.unitas.control.client.WatchStatus;
import io.unitas.core.rules.Unit;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/unitas}: the routing state this service sees — its region, each unit's home, region health and
 * the fenced units — to compare with the control plane's when a call went somewhere unexpected; and the
 * {@link UnitasStateSection}s' (the fallback pool kept on disk, when there is one).
 */
@Endpoint(id = "unitas")
final class RoutingStateEndpoint {

    private final UnitasProperties properties;
    private final UnitasRoutingState state;
    private final Supplier<List<UnitasStateSection>> sections;

    RoutingStateEndpoint(UnitasProperties properties, UnitasRoutingState state) {
        this(properties, state, List::of);
    }

    RoutingStateEndpoint(UnitasProperties properties, UnitasRoutingState state,
                         Supplier<List<UnitasStateSection>> sections) {
        this.properties = properties;
        this.state = state;
        this.sections = sections;
    }

    @ReadOperation
    Map<String, Object> state() {
        RoutingSnapshot s = state.current();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("region", properties.getRegion());
        out.put("health_revision", s.health().revision());
        if (state instanceof FollowedRoutingState followed) {
            out.put("revision", followed.revision());
            WatchStatus watch = followed.watchStatus();
            out.put("source", watch == null ? "files" : "control plane: " + watch.describe());
        } else {
            out.put("source", "files read at start");
        }
        Map<String, String> units = new LinkedHashMap<>();
        for (Unit u : s.rules().units()) {
            units.put(u.id(), u.home().id());
        }
        out.put("units", units);
        Map<String, Boolean> health = new LinkedHashMap<>();
        s.rules().topology().regions().forEach(r -> health.put(r.id(), s.health().isHealthy(r)));
        out.put("healthy", health);
        out.put("fenced", s.fences().fences().keySet().stream().sorted().toList());
        sections.get().forEach(section -> out.put(section.name(), section.describe()));
        return out;
    }
}
