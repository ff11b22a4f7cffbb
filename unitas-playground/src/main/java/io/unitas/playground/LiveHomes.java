package io.unitas.playground;

import com.fasterxml.jackson.databind.JsonNode;
import io.unitas.config.ConfigDocument;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.WatchStatus;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitRules;
import java.net.URI;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane's live unit-to-region map, followed on its watch stream as the gateways follow it: after a
 * switchover or a promotion the shops find a moved unit's accounts, sessions and idempotency records in its new
 * home, not the one the starting rules named. Until the first state arrives (or while the control plane is away)
 * it answers what it last knew, or nothing, which leaves the rules' home in force.
 */
final class LiveHomes implements Function<Unit, Optional<Region>>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LiveHomes.class);

    private volatile Map<String, Region> homes = Map.of();
    private volatile long revision = -1;
    private final ControlClient.Watch watch;

    private LiveHomes(ControlClient client) {
        this.watch = client.watch(-1, EnumSet.of(ControlClient.Part.CONFIG), event -> apply(event.json()));
    }

    /** Follows the control plane at {@code control} with a viewer's {@code token}. */
    static LiveHomes follow(URI control, String token) {
        return new LiveHomes(ControlClient.of(control, token));
    }

    @Override
    public Optional<Region> apply(Unit unit) {
        return Optional.ofNullable(homes.get(unit.id()));
    }

    /** The revision of the last state read; -1 before the first. */
    long revision() {
        return revision;
    }

    /** How the watch is doing (connected, last revision, reconnects, last error). */
    WatchStatus status() {
        return watch.status();
    }

    /** Reads the units' homes from one whole state; a state that does not read keeps the last map, logged. */
    private void apply(String json) {
        try {
            ConfigDocument doc = ConfigDocument.parse("control-plane-state.json", json);
            JsonNode root = doc.root();
            if (!root.path("topology").isObject() || !root.path("rules").isObject()) {
                return; // no model yet: the rules' homes stay in force
            }
            Topology topology = TopologyFile.parse(ConfigDocument.parse("control-plane-state.topology.json",
                                                                        root.get("topology").toString()));
            UnitRules rules = UnitRulesFile.parse(ConfigDocument.parse("control-plane-state.rules.json",
                                                                       root.get("rules").toString()), topology);
            Map<String, Region> next = new HashMap<>();
            rules.units().forEach(u -> next.put(u.id(), u.home()));
            homes = Map.copyOf(next);
            revision = root.path("revision").asLong(-1);
        } catch (RuntimeException e) {
            log.warn("unit homes: state refused, keeping revision {}: {}", revision, e.getMessage());
        }
    }

    @Override
    public void close() {
        watch.close();
    }
}
