package io.unitas.gateway;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.ConfigDocument;
import io.unitas.control.client.ControlClient;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.fence.Writes;
import io.unitas.core.rules.UnitRules;

/**
 * Routing state from a control plane's watch stream (the control plane's own client, {@link ControlClient#watch}:
 * server-sent events whose data is the whole state, resumed after the last revision on reconnect). Every state that
 * reads and validates is published and written to the state file, so the gateway keeps serving it while the
 * control plane is away and starts from it after a restart.
 */
final class ControlPlaneFeed implements StateFeed {

    private final GatewayConfig.ControlPlane cp;
    private final Writes writes;
    private volatile long revision = -1;
    private StateHolder holder;
    private AutoCloseable watch;

    ControlPlaneFeed(GatewayConfig.ControlPlane cp, Writes writes) {
        this.cp = cp;
        this.writes = writes;
    }

    @Override
    public void start(StateHolder holder) {
        this.holder = holder;
        if (Files.exists(cp.stateFile())) {
            try {
                apply(Files.readString(cp.stateFile()), false);
            } catch (IOException | RuntimeException e) {
                System.err.println("gateway: cannot use the last good state in " + cp.stateFile() + ": "
                                   + e.getMessage());
            }
        }
        watch = ControlClient.of(URI.create(cp.url()), cp.token()).watch(revision, event -> {
            try {
                apply(event.json(), true);
            } catch (RuntimeException e) {
                System.err.println("gateway: state " + event.revision() + " refused, still serving revision "
                                   + revision + ": " + e.getMessage());
            }
        });
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
        UnitRules rules = StateParts.rules(ConfigDocument.parse("control-plane-state.rules.json",
                                                                root.path("rules").toString()), topology);
        HealthSnapshot health = StateParts.health(root.get("health"), topology);
        WriteFences fences = StateParts.fences(doc, root.get("fences"), "fences", writes);
        holder.publish(rev, rules, health, fences);
        revision = rev;
        if (persist) {
            keep(json);
        }
    }

    private void keep(String json) {
        Path file = cp.stateFile();
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(tmp, json);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("gateway: cannot keep the last good state in " + file + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            if (watch != null) {
                watch.close();
            }
        } catch (Exception e) {
            // closing a watch only stops a thread; nothing to report
        }
    }
}
