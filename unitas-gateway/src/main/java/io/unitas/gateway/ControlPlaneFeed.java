package io.unitas.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.ConfigDocument;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;

/**
 * Routing state from a control plane's watch stream ({@code GET /api/v1/watch?since=REV}, server-sent events whose
 * {@code data} is the whole state). Every state that reads and validates is published and written to the state
 * file, so the gateway keeps serving it while the control plane is away and starts from it after a restart.
 * Reconnects with a capped backoff, asking only for revisions newer than the one it has.
 */
final class ControlPlaneFeed implements StateFeed {

    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final GatewayConfig.ControlPlane cp;
    private final Set<String> writeMethods;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread watcher;
    private volatile boolean closed;
    private volatile long revision;
    private StateHolder holder;

    ControlPlaneFeed(GatewayConfig.ControlPlane cp, Set<String> writeMethods) {
        this.cp = cp;
        this.writeMethods = writeMethods;
        this.watcher = new Thread(this::watch, "unitas-gateway-watch");
        watcher.setDaemon(true);
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
        watcher.start();
    }

    private void watch() {
        long backoffMs = 200;
        while (!closed) {
            try {
                HttpRequest.Builder req = HttpRequest.newBuilder(
                        URI.create(cp.url().replaceAll("/+$", "") + "/api/v1/watch?since=" + revision))
                                                     .header("accept", "text/event-stream");
                if (!cp.token().isEmpty()) {
                    req.header("authorization", "Bearer " + cp.token());
                }
                HttpResponse<Stream<String>> res = http.send(req.build(), HttpResponse.BodyHandlers.ofLines());
                if (res.statusCode() != 200) {
                    res.body().close();
                    throw new IOException("watch answered " + res.statusCode());
                }
                try (Stream<String> lines = res.body()) {
                    backoffMs = 200;
                    readEvents(lines.iterator());
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException | UncheckedIOException e) {
                // The control plane is away: keep serving the last good state and try again.
            }
            try {
                Thread.sleep(backoffMs);
            } catch (InterruptedException e) {
                return;
            }
            backoffMs = Math.min(MAX_BACKOFF.toMillis(), backoffMs * 2);
        }
    }

    /** Reads server-sent events (only {@code event: state} matters) until the stream ends. */
    private void readEvents(Iterator<String> lines) {
        String event = "message";
        StringBuilder data = new StringBuilder();
        while (!closed && lines.hasNext()) {
            String line = lines.next();
            if (line.isEmpty()) {
                if ("state".equals(event) && data.length() > 0) {
                    try {
                        apply(data.toString(), true);
                    } catch (RuntimeException e) {
                        System.err.println("gateway: state refused, still serving revision " + revision + ": "
                                           + e.getMessage());
                    }
                }
                event = "message";
                data.setLength(0);
            } else if (line.startsWith("event:")) {
                event = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                if (data.length() > 0) {
                    data.append('\n');
                }
                data.append(line.substring(5).stripLeading());
            }
        }
    }

    /** Reads, validates and publishes one whole state document; keeps it on disk when it came from the wire. */
    private void apply(String json, boolean persist) {
        ConfigDocument doc = ConfigDocument.parse("control-plane-state.json", json);
        JsonNode root = doc.root();
        long rev = root.path("revision").asLong(-1);
        if (rev < 0) {
            throw doc.error("revision", "missing (expected: a whole number >= 0)");
        }
        if (rev <= revision && holder.get() != null) {
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
        WriteFences fences = StateParts.fences(doc, root.get("fences"), "fences", writeMethods);
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
        closed = true;
        watcher.interrupt();
    }
}
