package io.unitas.health;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.internal.DocumentReader;
import io.unitas.config.internal.SecretFiles;
import io.unitas.config.internal.DurationFormat;
import io.unitas.core.Region;
import io.unitas.core.health.Aggregation;
import io.unitas.core.health.Gate;
import io.unitas.core.health.Thresholds;

/** Reads {@code health.yaml} into a {@link HealthConfig}, collecting every problem with its line. */
final class HealthConfigReader extends DocumentReader {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");
    private static final Set<String> CALCULATED = Set.of("all", "any", "at-least");
    private static final List<String> TOP = List.of("region", "listen", "defaults", "checks", "push");
    private static final List<String> COMMON = List.of("name", "kind", "gate", "inverted");
    private static final List<String> SCHEDULE = List.of("interval", "timeout", "fall", "rise");


    HealthConfigReader(ConfigDocument doc) {
        super(doc);
    }

    HealthConfig read() {
        JsonNode root = doc.root();
        if (!root.isObject()) {
            throw doc.error("", "not a mapping (expected: region, listen, defaults, checks, push)");
        }
        unknownKeys(root, "", TOP);
        String regionId = text(root.get("region"), "region", null);
        if (regionId == null) {
            problem("region", "missing (expected: the region id, like cn)");
        } else if (!Region.isValidId(regionId)) {
            problem("region", "'" + regionId
                    + "' (expected: lowercase letters, digits, '-' or '_', at most 63)");
        }
        JsonNode listen = object(root.get("listen"), "listen", List.of("address", "http", "grpc"));
        String address = text(listen.get("address"), "listen.address", "127.0.0.1");
        int http = port(listen.get("http"), "listen.http", 8081);
        int grpc = port(listen.get("grpc"), "listen.grpc", 8082);
        JsonNode defaultsNode = object(root.get("defaults"), "defaults", SCHEDULE);
        Duration interval = duration(defaultsNode.get("interval"), "defaults.interval", HealthConfig.DEFAULT_INTERVAL);
        Duration timeout = duration(defaultsNode.get("timeout"), "defaults.timeout", HealthConfig.DEFAULT_TIMEOUT);
        int fall = count(defaultsNode.get("fall"), "defaults.fall", HealthConfig.DEFAULT_THRESHOLDS.fall());
        int rise = count(defaultsNode.get("rise"), "defaults.rise", HealthConfig.DEFAULT_THRESHOLDS.rise());
        List<CheckConfig> checks = checks(root, interval, timeout, fall, rise);
        Optional<PushConfig> push = push(root);
        throwIfProblems();
        return new HealthConfig(Region.of(regionId), address, http, grpc, checks, push);
    }

    private List<CheckConfig> checks(JsonNode root, Duration interval, Duration timeout, int fall, int rise) {
        JsonNode list = root.get("checks");
        List<CheckConfig> checks = new ArrayList<>();
        if (list == null || !list.isArray() || list.isEmpty()) {
            problem("checks", (list == null ? "missing" : "empty or not a list")
                                                + " (expected: a list of at least one check)");
            return checks;
        }
        Map<String, Integer> names = new HashMap<>();
        Map<String, Boolean> calculated = new HashMap<>();
        for (int i = 0; i < list.size(); i++) {
            String path = "checks[" + i + "]";
            String name = text(list.get(i).get("name"), path + ".name", null);
            if (name == null) {
                problem(path + ".name", "missing (expected: a name like pg-primary)");
            } else if (!NAME.matcher(name).matches()) {
                problem(path + ".name", "'" + name
                        + "' (expected: lowercase letters, digits, '.', '-' or '_', at most 63)");
            } else if (names.containsKey(name)) {
                problem(path + ".name", "duplicate check '" + name + "' (first at checks["
                                                          + names.get(name) + "])");
            } else {
                names.put(name, i);
                calculated.put(name, CALCULATED.contains(text(list.get(i).get("kind"), path + ".kind", "")));
            }
        }
        for (int i = 0; i < list.size(); i++) {
            CheckConfig check = check(list.get(i), "checks[" + i + "]", interval, timeout, fall, rise, calculated);
            if (check != null) {
                checks.add(check);
            }
        }
        return checks;
    }

    private CheckConfig check(JsonNode node, String path, Duration defaultInterval, Duration defaultTimeout,
                              int defaultFall, int defaultRise, Map<String, Boolean> known) {
        if (!node.isObject()) {
            problem(path, "not a mapping (expected: name, kind, target, ...)");
            return null;
        }
        String name = text(node.get("name"), path + ".name", "?");
        String kindId = text(node.get("kind"), path + ".kind", null);
        Gate gate = gate(node.get("gate"), path + ".gate");
        boolean inverted = bool(node.get("inverted"), path + ".inverted", false);
        if (kindId == null) {
            problem(path + ".kind", "missing (expected one of: " + ProbeConfig.Kind.ids()
                                                      + ", all, any, at-least)");
            return null;
        }
        if (CALCULATED.contains(kindId)) {
            List<String> allowed = new ArrayList<>(COMMON);
            allowed.add("of");
            if (kindId.equals("at-least")) {
                allowed.add("k");
            }
            unknownKeys(node, path, allowed);
            List<String> children = children(node, path + ".of", name, known);
            Aggregation aggregation = switch (kindId) {
                case "all" -> Aggregation.all();
                case "any" -> Aggregation.any();
                default -> atLeast(node, path + ".k", children.size());
            };
            return new CheckConfig(name, gate, inverted, defaultInterval, defaultTimeout, Thresholds.DEFAULT, null,
                                   aggregation, children);
        }
        Optional<ProbeConfig.Kind> kind = ProbeConfig.Kind.of(kindId);
        if (kind.isEmpty()) {
            problem(path + ".kind", "'" + kindId + "' (expected one of: " + ProbeConfig.Kind.ids()
                                                      + ", all, any, at-least)");
            return null;
        }
        Optional<String> missingDriver = kind.get().missingDriver();
        if (missingDriver.isPresent()) {
            problem(path + ".kind", kindId + " (expected its driver on the class path: add " + missingDriver.get()
                                    + " beside unitas-health)");
            return null;
        }
        unknownKeys(node, path, allowedKeys(kind.get()));
        Duration interval = duration(node.get("interval"), path + ".interval", defaultInterval);
        Duration timeout = duration(node.get("timeout"), path + ".timeout", defaultTimeout);
        int fall = count(node.get("fall"), path + ".fall", defaultFall);
        int rise = count(node.get("rise"), path + ".rise", defaultRise);
        String target = text(node.get("target"), path + ".target", null);
        if (target == null) {
            problem(path + ".target", "missing (expected: where to probe, like "
                                                        + example(kind.get()) + ")");
            return null;
        }
        ProbeConfig.Role role = ProbeConfig.Role.ANY;
        String roleText = text(node.get("role"), path + ".role", null);
        if (roleText != null) {
            role = ProbeConfig.Role.of(roleText).orElse(null);
            if (role == null) {
                problem(path + ".role", "'" + roleText + "' (expected: primary, standby or any)");
                role = ProbeConfig.Role.ANY;
            }
        }
        ProbeConfig probe = new ProbeConfig(kind.get(), target, role,
                durationOrZero(node.get("max-lag"), path + ".max-lag", Duration.ZERO), bool(node.get("heartbeat"), path + ".heartbeat", false),
                text(node.get("status"), path + ".status", ProbeConfig.DEFAULT_STATUS), text(node.get("body-contains"), path + ".body-contains", ""),
                text(node.get("service"), path + ".service", ""),
                bool(node.get("unitas-schema"), path + ".unitas-schema", false));
        if (probe.unitasSchema() && role == ProbeConfig.Role.STANDBY) {
            problem(path + ".unitas-schema", "true on a standby (expected: role primary or any; the region's "
                                             + "positions are read where it writes them)");
        }
        try {
            Probe.of(probe).close();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            int colon = message.indexOf(": ");
            String field = message.substring(0, colon);
            problem(path + "." + field, message.substring(colon + 2));
        }
        return new CheckConfig(name, gate, inverted, interval, timeout, new Thresholds(fall, rise), probe, null,
                               List.of());
    }

    private static List<String> allowedKeys(ProbeConfig.Kind kind) {
        List<String> keys = new ArrayList<>(COMMON);
        keys.addAll(SCHEDULE);
        keys.add("target");
        switch (kind) {
            case POSTGRES -> keys.addAll(List.of("role", "max-lag", "heartbeat", "unitas-schema"));
            case MYSQL -> keys.addAll(List.of("role", "max-lag"));
            case REDIS -> keys.addAll(List.of("role", "max-lag"));
            case HTTP -> keys.addAll(List.of("status", "body-contains"));
            case GRPC -> keys.add("service");
            case TCP -> { }
        }
        return keys;
    }

    private static String example(ProbeConfig.Kind kind) {
        return switch (kind) {
            case POSTGRES -> "postgresql://postgres@127.0.0.1:5432/shop";
            case MYSQL -> "mysql://unitas:secret@127.0.0.1:3306/shop";
            case REDIS -> "redis://127.0.0.1:6379";
            case HTTP -> "http://127.0.0.1:8080/health";
            case TCP -> "127.0.0.1:443";
            case GRPC -> "127.0.0.1:9090";
        };
    }

    private List<String> children(JsonNode node, String path, String self, Map<String, Boolean> known) {
        JsonNode of = node.get("of");
        List<String> children = new ArrayList<>();
        if (of == null || !of.isArray() || of.isEmpty()) {
            problem(path, "missing or empty (expected: a list of check names)");
            return children;
        }
        Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < of.size(); i++) {
            String at = path + "[" + i + "]";
            String child = of.get(i).isTextual() ? of.get(i).asText() : of.get(i).toString();
            if (!known.containsKey(child) || child.equals(self)) {
                problem(at, "unknown check '" + child + "' (expected one of: "
                        + String.join(", ", known.keySet().stream().filter(n -> !n.equals(self)).sorted().toList())
                        + ")");
            } else if (known.get(child)) {
                problem(at, "'" + child + "' is a calculated check (expected: a probe check)");
            } else if (!seen.add(child)) {
                problem(at, "duplicate check '" + child + "'");
            } else {
                children.add(child);
            }
        }
        return children;
    }

    private Aggregation atLeast(JsonNode node, String path, int children) {
        JsonNode k = node.get("k");
        if (!ConfigDocument.isWholeInt(k) || k.asInt() < 1 || k.asInt() > children) {
            problem(path, (k == null ? "missing" : k.toString())
                                            + " (expected: a whole number from 1 to " + children + ")");
            return Aggregation.all();
        }
        return Aggregation.atLeast(k.asInt());
    }

    private Optional<PushConfig> push(JsonNode root) {
        JsonNode node = root.get("push");
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        JsonNode push = object(root.get("push"), "push",
                               List.of("url", "token-file", "token-env", "every", "ca", "allow-insecure"));
        String url = text(push.get("url"), "push.url", null);
        URI uri = null;
        try {
            uri = url == null ? null : new URI(url);
        } catch (URISyntaxException e) {
            // reported below
        }
        if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
            || uri.getHost() == null) {
            problem("push.url", (url == null ? "missing" : "'" + url + "'")
                    + " (expected: an http(s) URL like https://control:8443/api/v1/health/cn)");
        }
        String file = text(push.get("token-file"), "push.token-file", null);
        if (file != null) {
            try {
                SecretFiles.checkPrivate(Path.of(file), HealthPusher.TOKEN_FILE);
            } catch (IllegalArgumentException e) {
                problem("push.token-file", e.getMessage());
            }
        }
        Duration every = duration(push.get("every"), "push.every", Duration.ofSeconds(10));
        if (uri == null || every.isZero()) {
            return Optional.empty();
        }
        String ca = text(push.get("ca"), "push.ca", null);
        boolean insecure = bool(push.get("allow-insecure"), "push.allow-insecure", false);
        PushConfig config = new PushConfig(uri, file == null ? null : Path.of(file),
                                           text(push.get("token-env"), "push.token-env", null), every, ca == null ? null : Path.of(ca),
                                           insecure);
        try {
            HealthPusher.client(config); // refuses cleartext to another host and a CA file that is not one
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            if (message.startsWith("ca: ")) {
                problem("push.ca", message.substring(4));
            } else {
                problem("push.url", message.replaceFirst("^control plane url: ", ""));
            }
        }
        return Optional.of(config);
    }

    private int count(JsonNode node, String path, int fallback) {
        return wholeNumber(node, path, fallback, 1, 100, "a whole number from 1 to 100");
    }

    private int port(JsonNode node, String path, int fallback) {
        return wholeNumber(node, path, fallback, 0, 65535, "a port from 0 to 65535; 0 picks a free one");
    }

    private Gate gate(JsonNode node, String path) {
        String text = text(node, path, "healthy");
        for (Gate gate : Gate.values()) {
            if (gate.id().equals(text)) {
                return gate;
            }
        }
        problem(path, "'" + text + "' (expected: healthy, writable or none)");
        return Gate.HEALTHY;
    }
}
