package io.unitas.control.client.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.EnumSet;

import com.fasterxml.jackson.databind.JsonNode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.WatchStatus;
import io.unitas.control.client.internal.StateParts;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.fence.Writes;
import io.unitas.core.rules.UnitRules;

/**
 * Routing state from a control plane's watch stream (the control plane's own client, {@link ControlClient#watch}:
 * server-sent events whose data is the whole state, resumed after the last revision on reconnect). Every state that
 * reads and validates is published and written to the state file, so the follower keeps serving it while the
 * control plane is away and starts from it after a restart.
 */
final class ControlPlaneFeed implements StateFeed {

    private static final Logger log = LoggerFactory.getLogger(ControlPlaneFeed.class);

    private final StateSource.ControlPlane cp;
    private final Writes writes;
    private final boolean unitRules;
    private volatile long revision = -1;
    private StateHolder holder;
    private volatile ControlClient.Watch watch;

    /**
     * With {@code unitRules} false the state need not have rules, and they are read only when it has (a follower
     * that routes regions only, and spills a down region's clients over by the units' loads when there are some).
     */
    ControlPlaneFeed(StateSource.ControlPlane cp, Writes writes, boolean unitRules) {
        this.unitRules = unitRules;
        this.cp = cp;
        this.writes = writes;
    }

    @Override
    public void start(StateHolder holder) {
        this.holder = holder;
        if (Files.exists(cp.stateFile(), LinkOption.NOFOLLOW_LINKS)) {
            try {
                apply(StateFile.read(cp.stateFile()), false);
            } catch (IOException | RuntimeException e) {
                log.warn("cannot use the last good state in {}: {}", cp.stateFile(), e.getMessage());
            }
        }
        watch = cp.client().watch(revision, EnumSet.allOf(ControlClient.Part.class), event -> {
            try {
                apply(event.json(), true);
            } catch (RuntimeException e) {
                log.warn("state {} refused, still serving revision {}: {}", event.revision(), revision,
                         e.getMessage());
            }
        });
    }

    @Override
    public WatchStatus watchStatus() {
        ControlClient.Watch w = watch;
        return w == null ? null : w.status();
    }

    /** Reads, validates and publishes one whole state document; keeps it on disk when it came from the wire. */
    private void apply(String json, boolean persist) {
        ConfigDocument doc = ConfigDocument.parse("control-plane-state.json", json);
        JsonNode root = doc.root();
        long rev = root.path("revision").asLong(-1);
        if (rev < 0) {
            throw doc.error("revision", "missing (expected: a whole number >= 0)");
        }
        if (rev <= revision) {
            return;
        }
        if (!root.path("topology").isObject()) {
            throw doc.error("topology", "missing (expected: the topology)");
        }
        Topology topology = StateParts.topology(ConfigDocument.parse("control-plane-state.topology.json",
                                                                     root.get("topology").toString()));
        boolean readRules = unitRules || root.path("rules").isObject();
        UnitRules rules = !readRules ? null : StateParts.rules(ConfigDocument.parse("control-plane-state.rules.json",
                                                                root.path("rules").toString()), topology);
        HealthSnapshot health = StateParts.health(root.get("health"), topology);
        WriteFences fences = StateParts.fences(doc, root.get("fences"), "fences", writes);
        holder.publish(rev, topology, rules, health, fences);
        revision = rev;
        if (persist) {
            keep(json);
        }
    }

    private void keep(String json) {
        try {
            StateFile.replace(cp.stateFile(), json);
        } catch (IOException e) {
            log.warn("cannot keep the last good state in {}: {}", cp.stateFile(), e.getMessage());
        }
    }

    @Override
    public void close() {
        if (watch != null) {
            watch.close();
        }
    }
}
