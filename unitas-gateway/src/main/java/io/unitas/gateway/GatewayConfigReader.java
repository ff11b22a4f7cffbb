package io.unitas.gateway;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.internal.DocumentReader;
import io.unitas.config.internal.DurationFormat;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.state.StateSource;
import io.unitas.control.client.internal.StateSourceReader;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.fence.Writes;
import io.unitas.core.propagation.HopRule;
import io.unitas.gateway.GatewayConfig.Headers;
import io.unitas.gateway.GatewayConfig.Resilience;

/** Reads {@code gateway.yaml}, collecting every problem with its line before giving up. */
final class GatewayConfigReader extends DocumentReader {

    private static final Set<String> TOP = Set.of("region", "listen", "tls", "workers", "transport", "time_slice",
                                                  "upstreams", "control_plane", "static", "headers", "hop_limit",
                                                  "write_methods", "read_paths", "health_check", "timeouts", "retries",
                                                  "outlier", "access_log", "hold_down", "on_read_only",
                                                  "on_read_only_units", "trusted_peers", "limits", "admin");
    private static final Pattern ENDPOINT = Pattern.compile("[^\\s:/]+:\\d{1,5}");

    private final Path base;

    private GatewayConfigReader(ConfigDocument doc, Path base) {
        super(doc);
        this.base = base;
    }

    static GatewayConfig read(Path file) {
        Path base = file.toAbsolutePath().getParent();
        return new GatewayConfigReader(ConfigDocument.read(file), base).read();
    }

    private GatewayConfig read() {
        JsonNode root = doc.root();
        if (!root.isObject()) {
            throw doc.error("", "expected a mapping with region, listen, upstreams and control_plane or static");
        }
        unknownKeys(root, "", TOP);
        Region region = region(root.get("region"), "region");
        InetSocketAddress listen = listen(root.get("listen"));
        GatewayConfig.Certificate tls = certificate(root.get("tls"));
        int workers = workers(root.get("workers"));
        GatewayConfig.TransportKind transport = transport(root.get("transport"));
        boolean shortTimeSlices = shortTimeSlices(root.get("time_slice"));
        Map<Region, GatewayConfig.Upstream> upstreams = upstreams(root.get("upstreams"), region);
        StateSource source = source();
        Headers headers = headers(root.get("headers"));
        int hopLimit = wholeNumber(root.get("hop_limit"), "hop_limit", HopRule.DEFAULT_LIMIT, 1);
        Writes writes = writes(root.get("write_methods"), root.get("read_paths"));
        Resilience resilience = resilience(root);
        GatewayConfig.Limits limits = limits(root.get("limits"));
        // YAML 1.1 reads a bare `off` as false.
        JsonNode log = root.get("access_log");
        String accessLog = log != null && log.isBoolean() && !log.asBoolean() ? "off"
                           : text(log, "access_log", "stdout");
        GatewayConfig.Routing routing = routing(root);
        for (int i = 0; i < routing.trustedPeers().size(); i++) {
            if (TrustedPeers.namesCertificate(routing.trustedPeers().get(i)) && (tls == null || tls.clientCa() == null)) {
                problem("trusted_peers[" + i + "]", "'" + routing.trustedPeers().get(i) + "' names a peer by its "
                        + "certificate, which the listener does not ask for (expected: tls.client_ca, the CA of the "
                        + "peers' certificates)");
            }
        }
        GatewayConfig.Admin admin = admin(root.get("admin"), listen);
        throwIfProblems();
        return new GatewayConfig(region, listen, tls, workers, transport, shortTimeSlices, upstreams, source, headers,
                                 hopLimit, writes, resilience, accessLog, routing, limits, admin);
    }

    /** {@code hold_down}, {@code on_read_only}, {@code on_read_only_units} and {@code trusted_peers}. */
    private GatewayConfig.Routing routing(JsonNode root) {
        GatewayConfig.Routing d = GatewayConfig.Routing.DEFAULTS;
        Duration holdDown = d.holdDown();
        JsonNode hd = root.get("hold_down");
        if (hd != null) {
            try {
                holdDown = DurationFormat.parse(hd.asText()); // 0s turns the hold-down off
            } catch (IllegalArgumentException e) {
                problem("hold_down", e.getMessage());
            }
        }
        ReadOnlyPolicy onReadOnly = readOnlyPolicy(root.get("on_read_only"), "on_read_only", d.onReadOnly());
        Map<String, ReadOnlyPolicy> byUnit = new LinkedHashMap<>();
        JsonNode units = root.get("on_read_only_units");
        if (units != null && !units.isObject()) {
            problem("on_read_only_units", "expected a mapping of unit to fence or failover");
        } else if (units != null) {
            units.properties().forEach(e -> byUnit.put(e.getKey(), readOnlyPolicy(
                    e.getValue(), "on_read_only_units." + e.getKey(), onReadOnly)));
        }
        List<String> peers = new ArrayList<>();
        JsonNode tp = root.get("trusted_peers");
        if (tp != null && !tp.isArray()) {
            problem("trusted_peers", "expected a list of the other regions' gateways: IP addresses, CIDRs or "
                                     + "certificate names (dns:NAME, uri:URI, cn:NAME)");
        } else if (tp != null) {
            for (int i = 0; i < tp.size(); i++) {
                String range = tp.get(i).asText();
                String bad = TrustedPeers.problem(range);
                if (bad != null) {
                    problem("trusted_peers[" + i + "]", bad);
                } else {
                    peers.add(range);
                }
            }
        }
        return new GatewayConfig.Routing(holdDown, onReadOnly, byUnit, peers);
    }

    private ReadOnlyPolicy readOnlyPolicy(JsonNode node, String path, ReadOnlyPolicy fallback) {
        if (node == null) {
            return fallback;
        }
        try {
            return ReadOnlyPolicy.fromJson(node.asText());
        } catch (IllegalArgumentException e) {
            problem(path, e.getMessage());
            return fallback;
        }
    }

    /** {@code limits}: the client connections' cap and timeouts, each defaulted on its own. */
    private GatewayConfig.Limits limits(JsonNode node) {
        GatewayConfig.Limits d = GatewayConfig.Limits.DEFAULTS;
        JsonNode li = object(node, "limits", Set.of("max_connections", "header_read_timeout", "idle_timeout"));
        return new GatewayConfig.Limits(
                wholeNumber(li.get("max_connections"), "limits.max_connections", d.maxConnections(), 1),
                duration(li.get("header_read_timeout"), "limits.header_read_timeout", d.headerReadTimeout()),
                duration(li.get("idle_timeout"), "limits.idle_timeout", d.idleTimeout()));
    }

    /** {@code auto} (or absent), {@code io_uring}, {@code epoll} or {@code nio}. */
    private GatewayConfig.TransportKind transport(JsonNode node) {
        if (node == null) {
            return GatewayConfig.TransportKind.AUTO;
        }
        for (GatewayConfig.TransportKind kind : GatewayConfig.TransportKind.values()) {
            if (kind.id().equals(node.asText())) {
                return kind;
            }
        }
        problem("transport", node + " (expected: auto, io_uring, epoll or nio)");
        return GatewayConfig.TransportKind.AUTO;
    }

    /** {@code short} (or absent): the scheduler's shortest time slice for the event loops; {@code kernel}: its own. */
    private boolean shortTimeSlices(JsonNode node) {
        if (node == null || "short".equals(node.asText())) {
            return true;
        }
        if (!"kernel".equals(node.asText())) {
            problem("time_slice", node + " (expected: short or kernel)");
        }
        return false;
    }

    /** {@code auto} (or absent): one per core, as 0; else a count. */
    private int workers(JsonNode node) {
        if (node == null || "auto".equals(node.asText())) {
            return 0;
        }
        if (!ConfigDocument.isWholeInt(node) || node.asInt() < 1) {
            problem("workers", node + " (expected: auto or a whole number >= 1)");
            return 0;
        }
        return node.asInt();
    }

    private Region region(JsonNode node, String path) {
        String id = text(node, path, null);
        if (id == null) {
            problem(path, "missing (expected: a region id such as cn)");
            return Region.of("unknown");
        }
        if (!Region.isValidId(id)) {
            problem(path, "'" + id + "' (expected: lowercase letters, digits, '-' or '_', at most 63)");
            return Region.of("unknown");
        }
        return Region.of(id);
    }

    private InetSocketAddress listen(JsonNode node) {
        return address(node, "listen", "127.0.0.1:8080");
    }

    /**
     * {@code admin: {listen, token_file}}: where the gateway's own endpoints are served, and the token they ask for;
     * {@link GatewayConfig.Admin#OPEN} when absent.
     */
    private GatewayConfig.Admin admin(JsonNode node, InetSocketAddress traffic) {
        if (node == null) {
            return GatewayConfig.Admin.OPEN;
        }
        JsonNode admin = object(node, "admin", Set.of("listen", "token_file"));
        if (admin == null) {
            return GatewayConfig.Admin.OPEN;
        }
        InetSocketAddress listen = admin.has("listen") ? address(admin.get("listen"), "admin.listen", "127.0.0.1:9901")
                                                       : null;
        if (listen != null && listen.getPort() != 0 && listen.getPort() == traffic.getPort()) {
            problem("admin.listen", "port " + listen.getPort() + " is the traffic port's (expected: a port of its own)");
        }
        String token = text(admin.get("token_file"), "admin.token_file", null);
        if (listen == null && token == null) {
            problem("admin", "expected listen (host:port), token_file, or both");
        }
        Path tokenFile = token == null ? null : file(token);
        if (tokenFile != null) {
            try {
                SecretFiles.checkPrivate(tokenFile, "the admin token");
                if (!Files.isReadable(tokenFile)) {
                    problem("admin.token_file", "cannot read " + tokenFile + " (expected: a file holding the token)");
                }
            } catch (IllegalArgumentException e) {
                problem("admin.token_file", e.getMessage());
            }
        }
        return new GatewayConfig.Admin(listen, tokenFile);
    }

    private InetSocketAddress address(JsonNode node, String path, String example) {
        String text = text(node, path, null);
        if (text == null) {
            problem(path, "missing (expected: host:port, e.g. " + example + ")");
            return new InetSocketAddress("127.0.0.1", 0);
        }
        if (!ENDPOINT.matcher(text).matches() || port(text) > 65535) {
            problem(path, "'" + text + "' (expected: host:port, e.g. " + example + ")");
            return new InetSocketAddress("127.0.0.1", 0);
        }
        int colon = text.lastIndexOf(':');
        return new InetSocketAddress(text.substring(0, colon), port(text));
    }

    private static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    private Map<Region, GatewayConfig.Upstream> upstreams(JsonNode node, Region self) {
        Map<Region, GatewayConfig.Upstream> out = new LinkedHashMap<>();
        if (node == null || !node.isObject() || node.isEmpty()) {
            problem("upstreams", "missing (expected: a mapping from region to endpoints)");
            return out;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String path = "upstreams." + e.getKey();
            if (!Region.isValidId(e.getKey())) {
                problem(path, "'" + e.getKey() + "' is not a region id");
                continue;
            }
            JsonNode up = e.getValue();
            if (up == null || !up.isObject()) {
                problem(path, "expected a mapping with endpoints");
                continue;
            }
            unknownKeys(up, path, Set.of("endpoints", "versions", "health_check", "protocol", "tls"));
            List<String> endpoints = endpoints(up.get("endpoints"), path + ".endpoints");
            Map<String, List<String>> versions = new LinkedHashMap<>();
            JsonNode vs = up.get("versions");
            if (vs != null && vs.isObject()) {
                vs.properties().forEach(v -> versions.put(
                        v.getKey(), endpoints(v.getValue(), path + ".versions." + v.getKey())));
            } else if (vs != null) {
                problem(path + ".versions", "expected a mapping from version to endpoints");
            }
            GatewayConfig.Protocol protocol = protocol(up.get("protocol"), path + ".protocol");
            GatewayConfig.Tls tls = tls(up.get("tls"), path + ".tls");
            if (protocol == GatewayConfig.Protocol.H2 && tls == null) {
                problem(path + ".protocol", "h2 needs tls (h2c is HTTP/2 without it)");
                protocol = GatewayConfig.Protocol.H2C;
            } else if (protocol == GatewayConfig.Protocol.H2C && tls != null) {
                problem(path + ".protocol", "h2c is HTTP/2 without TLS (expected: h2 with tls)");
                protocol = GatewayConfig.Protocol.H2;
            }
            String check = text(up.get("health_check"), path + ".health_check", null);
            boolean grpc = GatewayConfig.Upstream.GRPC_HEALTH.equals(check);
            if (grpc && !protocol.http2()) {
                problem(path + ".health_check", "'grpc' needs protocol: h2c or h2 (gRPC runs over HTTP/2)");
            } else if (!grpc && check != null && !check.isEmpty() && !check.startsWith("/")) {
                problem(path + ".health_check", "'" + check + "' (expected: an absolute path, grpc for the gRPC"
                                                + " health service, or \"\" for none)");
            }
            out.put(Region.of(e.getKey()), new GatewayConfig.Upstream(endpoints, versions, check, protocol, tls));
        }
        if (!out.containsKey(self) && Region.isValidId(self.id())) {
            problem("upstreams", "no endpoints for the gateway's own region " + self
                                 + " (expected: its services under upstreams." + self + ")");
        }
        return out;
    }

    private GatewayConfig.Protocol protocol(JsonNode node, String path) {
        String id = text(node, path, GatewayConfig.Protocol.HTTP1.id());
        for (GatewayConfig.Protocol p : GatewayConfig.Protocol.values()) {
            if (p.id().equals(id)) {
                return p;
            }
        }
        problem(path, "'" + id + "' (expected: http/1.1, h2c or h2)");
        return GatewayConfig.Protocol.HTTP1;
    }

    /** The listener's {@code tls: {cert, key}}, checked by making the TLS context; {@code null} when absent. */
    private GatewayConfig.Certificate certificate(JsonNode node) {
        if (node == null) {
            return null;
        }
        if (!node.isObject()) {
            problem("tls", "expected a mapping with cert and key (PEM files)");
            return null;
        }
        unknownKeys(node, "tls", Set.of("cert", "key", "client_ca"));
        String cert = text(node.get("cert"), "tls.cert", null);
        String key = text(node.get("key"), "tls.key", null);
        String clientCa = text(node.get("client_ca"), "tls.client_ca", null);
        if (cert == null || key == null) {
            problem("tls", "expected both cert and key (PEM files)");
            return null;
        }
        if (!privateKey(file(key), "tls.key", "the listener's TLS key")) {
            return null;
        }
        Path clientCaFile = clientCa == null ? null : file(clientCa);
        if (clientCaFile != null) {
            String wrong = UpstreamTls.caProblem(clientCaFile);
            if (wrong != null) {
                problem("tls.client_ca", wrong);
                return null;
            }
        }
        GatewayConfig.Certificate certificate = new GatewayConfig.Certificate(file(cert), file(key), clientCaFile);
        try {
            ListenerTls.context(certificate);
        } catch (IllegalArgumentException e) {
            problem("tls", e.getMessage());
        }
        return certificate;
    }

    /** {@code tls: {ca, server_name}}, {@code tls: {}} or {@code tls: true} (the JDK's CAs), or absent. */
    private GatewayConfig.Tls tls(JsonNode node, String path) {
        if (node == null || node.isBoolean() && !node.asBoolean()) {
            return null;
        }
        if (node.isBoolean()) {
            return new GatewayConfig.Tls(null, null);
        }
        if (!node.isObject()) {
            problem(path, "expected true or a mapping with ca, server_name, cert and key");
            return null;
        }
        unknownKeys(node, path, Set.of("ca", "server_name", "cert", "key"));
        String ca = text(node.get("ca"), path + ".ca", null);
        Path caFile = ca == null ? null : file(ca);
        if (caFile != null) {
            String wrong = UpstreamTls.caProblem(caFile);
            if (wrong != null) {
                problem(path + ".ca", wrong);
            }
        }
        String cert = text(node.get("cert"), path + ".cert", null);
        String key = text(node.get("key"), path + ".key", null);
        if ((cert == null) != (key == null)) {
            problem(path, "expected both cert and key (PEM files), or neither");
            cert = null;
            key = null;
        }
        if (key != null && !privateKey(file(key), path + ".key", "the upstream's TLS key")) {
            cert = null;
            key = null;
        }
        GatewayConfig.Tls tls = new GatewayConfig.Tls(caFile, text(node.get("server_name"), path + ".server_name",
                null), cert == null ? null : file(cert), key == null ? null : file(key));
        if (tls.cert() != null) {
            try {
                UpstreamTls.of(tls, GatewayConfig.Protocol.HTTP1); // the certificate and key are read at once
            } catch (IllegalStateException e) {
                problem(path, e.getMessage());
            }
        }
        return tls;
    }

    /** As ssh checks its keys: a link, or a key others may read or write, is a problem at {@code path}. */
    private boolean privateKey(Path key, String path, String what) {
        try {
            SecretFiles.checkPrivate(key, what);
            return true;
        } catch (IllegalArgumentException e) {
            problem(path, e.getMessage());
            return false;
        }
    }

    private List<String> endpoints(JsonNode node, String path) {
        List<String> out = new ArrayList<>();
        if (node == null || !node.isArray() || node.isEmpty()) {
            problem(path, "expected a non-empty list of host:port");
            return out;
        }
        for (int i = 0; i < node.size(); i++) {
            String ep = node.get(i).asText();
            if (!node.get(i).isTextual() || !ENDPOINT.matcher(ep).matches() || port(ep) > 65535) {
                problem(path + "[" + i + "]", "'" + ep + "' (expected: host:port)");
            } else {
                out.add(ep);
            }
        }
        return out;
    }

    private StateSource source() {
        try {
            return StateSourceReader.read(doc, base, true);
        } catch (ConfigException e) {
            problems(e);
            return null;
        }
    }

    private Path file(String name) {
        return base.resolve(name).normalize();
    }

    private Headers headers(JsonNode node) {
        Headers d = Headers.DEFAULTS;
        if (node == null) {
            return d;
        }
        unknownKeys(node, "headers", Set.of("unit", "region", "origin", "hops", "served_by", "route"));
        return new Headers(header(node, "unit", d.unit()), header(node, "region", d.region()),
                           header(node, "origin", d.origin()), header(node, "hops", d.hops()),
                           header(node, "served_by", d.servedBy()), header(node, "route", d.route()));
    }

    private String header(JsonNode node, String key, String fallback) {
        String name = text(node.get(key), "headers." + key, fallback);
        if (!name.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")) {
            problem("headers." + key, "'" + name + "' (expected: an HTTP header name)");
        }
        return name.toLowerCase(Locale.ROOT);
    }

    private Writes writes(JsonNode methods, JsonNode readPaths) {
        Set<String> ms = new LinkedHashSet<>();
        if (methods == null) {
            ms.addAll(Writes.DEFAULT_METHODS);
        } else if (!methods.isArray() || methods.isEmpty()) {
            problem("write_methods", "expected a non-empty list of HTTP methods");
            return Writes.DEFAULT;
        } else {
            methods.forEach(m -> ms.add(m.asText()));
        }
        List<String> paths = new ArrayList<>();
        if (readPaths != null && !readPaths.isArray()) {
            problem("read_paths", "expected a list of paths, such as [/acme.orders.v1.Orders/Get*]");
        } else if (readPaths != null) {
            for (int i = 0; i < readPaths.size(); i++) {
                String p = readPaths.get(i).asText();
                String wrong = Writes.readPathProblem(p);
                if (wrong != null) {
                    problem("read_paths[" + i + "]", "'" + p + "' (" + wrong + ")");
                }
                paths.add(p);
            }
        }
        return hasProblems() ? Writes.DEFAULT : new Writes(ms, paths);
    }

    private Resilience resilience(JsonNode root) {
        Resilience d = Resilience.DEFAULTS;
        JsonNode hc = object(root.get("health_check"), "health_check", Set.of("path", "interval"));
        JsonNode to = object(root.get("timeouts"), "timeouts", Set.of("connect", "response", "idle"));
        JsonNode re = object(root.get("retries"), "retries", Set.of("max_attempts"));
        JsonNode ou = object(root.get("outlier"), "outlier", Set.of("failure_rate", "minimum_requests",
                                                                    "ejection_time"));
        String path = text(hc.get("path"), "health_check.path", d.healthCheckPath());
        if (!path.isEmpty() && !path.startsWith("/")) {
            problem("health_check.path", "'" + path + "' (expected: an absolute path such as /healthz)");
        }
        double rate = ou.has("failure_rate") ? ou.get("failure_rate").asDouble(-1) : d.ejectionFailureRate();
        if (!(rate > 0 && rate <= 1)) {
            problem("outlier.failure_rate", ou.get("failure_rate") + " (expected: 0 < rate <= 1)");
        }
        return new Resilience(path,
                              duration(hc.get("interval"), "health_check.interval", d.healthCheckInterval()),
                              duration(to.get("connect"), "timeouts.connect", d.connectTimeout()),
                              duration(to.get("response"), "timeouts.response", d.responseTimeout()),
                              duration(to.get("idle"), "timeouts.idle", d.idleTimeout()),
                              wholeNumber(re.get("max_attempts"), "retries.max_attempts", d.maxAttempts(), 1),
                              rate,
                              wholeNumber(ou.get("minimum_requests"), "outlier.minimum_requests",
                                      d.ejectionMinRequests(), 1),
                              duration(ou.get("ejection_time"), "outlier.ejection_time", d.ejectionTime()));
    }

    /** A positive duration in unitas's one duration grammar ({@link DurationFormat}). */
    static Duration parseDuration(String text) {
        return DurationFormat.parsePositive(text);
    }
}
