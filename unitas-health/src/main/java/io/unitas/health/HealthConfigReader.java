package io.unitas.health;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.DurationFormat;
import io.unitas.core.Region;
import io.unitas.core.health.Aggregation;
import io.unitas.core.health.Gate;
import io.unitas.core.health.Thresholds;

/** Reads {@code health.yaml} into a {@link HealthConfig}, collecting every problem with its line. */
final class HealthConfigReader {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");
    private static final Set<String> CALCULATED = Set.of("all", "any", "at-least");
    private static final List<String> TOP = List.of("region", "listen", "defaults", "checks", "push");
    private static final List<String> COMMON = List.of("name", "kind", "gate", "inverted");
    private static final List<String> SCHEDULE = List.of("interval", "timeout", "fall", "rise");

    private final ConfigDocument doc;
    private final List<String> problems = new ArrayList<>();

    HealthConfigReader(ConfigDocument doc) {
        this.doc = doc;
    }

    HealthConfig read() {
        JsonNode root = doc.root();
        if (!root.isObject()) {
            throw doc.error("", "not a mapping (expected: region, listen, defaults, checks, push)");
        }
        keys(root, "", TOP);
        String regionId = text(root, "region", null);
        if (regionId == null) {
            problems.add(doc.describe("region", "missing (expected: the region id, like cn)"));
        } else if (!Region.isValidId(regionId)) {
            problems.add(doc.describe("region", "'" + regionId
                    + "' (expected: lowercase letters, digits, '-' or '_', at most 63)"));
        }
        JsonNode listen = object(root, "listen");
        keys(listen, "listen", List.of("address", "http", "grpc"));
        String address = text(listen, "listen.address", "127.0.0.1");
        int http = port(listen, "listen.http", 8081);
        int grpc = port(listen, "listen.grpc", 8082);
        JsonNode defaultsNode = object(root, "defaults");
        keys(defaultsNode, "defaults", SCHEDULE);
        Duration interval = duration(defaultsNode, "defaults.interval", HealthConfig.DEFAULT_INTERVAL);
        Duration timeout = duration(defaultsNode, "defaults.timeout", HealthConfig.DEFAULT_TIMEOUT);
        int fall = count(defaultsNode, "defaults.fall", HealthConfig.DEFAULT_THRESHOLDS.fall());
        int rise = count(defaultsNode, "defaults.rise", HealthConfig.DEFAULT_THRESHOLDS.rise());
        List<CheckConfig> checks = checks(root, interval, timeout, fall, rise);
        Optional<PushConfig> push = push(root);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new HealthConfig(Region.of(regionId), address, http, grpc, checks, push);
    }

    private List<CheckConfig> checks(JsonNode root, Duration interval, Duration timeout, int fall, int rise) {
        JsonNode list = root.get("checks");
        List<CheckConfig> checks = new ArrayList<>();
        if (list == null || !list.isArray() || list.isEmpty()) {
            problems.add(doc.describe("checks", (list == null ? "missing" : "empty or not a list")
                                                + " (expected: a list of at least one check)"));
            return checks;
        }
        Map<String, Integer> names = new HashMap<>();
        Map<String, Boolean> calculated = new HashMap<>();
        for (int i = 0; i < list.size(); i++) {
            String path = "checks[" + i + "]";
            String name = text(list.get(i), path + ".name", null);
            if (name == null) {
                problems.add(doc.describe(path + ".name", "missing (expected: a name like pg-primary)"));
            } else if (!NAME.matcher(name).matches()) {
                problems.add(doc.describe(path + ".name", "'" + name
                        + "' (expected: lowercase letters, digits, '.', '-' or '_', at most 63)"));
            } else if (names.containsKey(name)) {
                problems.add(doc.describe(path + ".name", "duplicate check '" + name + "' (first at checks["
                                                          + names.get(name) + "])"));
            } else {
                names.put(name, i);
                calculated.put(name, CALCULATED.contains(text(list.get(i), path + ".kind", "")));
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
            problems.add(doc.describe(path, "not a mapping (expected: name, kind, target, ...)"));
            return null;
        }
        String name = text(node, path + ".name", "?");
        String kindId = text(node, path + ".kind", null);
        Gate gate = gate(node, path + ".gate");
        boolean inverted = bool(node, path + ".inverted", false);
        if (kindId == null) {
            problems.add(doc.describe(path + ".kind", "missing (expected one of: " + ProbeConfig.Kind.ids()
                                                      + ", all, any, at-least)"));
            return null;
        }
        if (CALCULATED.contains(kindId)) {
            List<String> allowed = new ArrayList<>(COMMON);
            allowed.add("of");
            if (kindId.equals("at-least")) {
                allowed.add("k");
            }
            keys(node, path, allowed);
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
            problems.add(doc.describe(path + ".kind", "'" + kindId + "' (expected one of: " + ProbeConfig.Kind.ids()
                                                      + ", all, any, at-least)"));
            return null;
        }
        keys(node, path, allowedKeys(kind.get()));
        Duration interval = duration(node, path + ".interval", defaultInterval);
        Duration timeout = duration(node, path + ".timeout", defaultTimeout);
        int fall = count(node, path + ".fall", defaultFall);
        int rise = count(node, path + ".rise", defaultRise);
        String target = text(node, path + ".target", null);
        if (target == null) {
            problems.add(doc.describe(path + ".target", "missing (expected: where to probe, like "
                                                        + example(kind.get()) + ")"));
            return null;
        }
        ProbeConfig.Role role = ProbeConfig.Role.ANY;
        String roleText = text(node, path + ".role", null);
        if (roleText != null) {
            role = ProbeConfig.Role.of(roleText).orElse(null);
            if (role == null) {
                problems.add(doc.describe(path + ".role", "'" + roleText + "' (expected: primary, standby or any)"));
                role = ProbeConfig.Role.ANY;
            }
        }
        ProbeConfig probe = new ProbeConfig(kind.get(), target, role,
                duration(node, path + ".max-lag", Duration.ZERO), bool(node, path + ".heartbeat", false),
                text(node, path + ".status", ProbeConfig.DEFAULT_STATUS), text(node, path + ".body-contains", ""),
                text(node, path + ".service", ""));
        try {
            Probe.of(probe).close();
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            int colon = message.indexOf(": ");
            String field = message.substring(0, colon);
            problems.add(doc.describe(path + "." + field, message.substring(colon + 2)));
        }
        return new CheckConfig(name, gate, inverted, interval, timeout, new Thresholds(fall, rise), probe, null,
                               List.of());
    }

    private static List<String> allowedKeys(ProbeConfig.Kind kind) {
        List<String> keys = new ArrayList<>(COMMON);
        keys.addAll(SCHEDULE);
        keys.add("target");
        switch (kind) {
            case POSTGRES -> keys.addAll(List.of("role", "max-lag", "heartbeat"));
            case MYSQL -> keys.addAll(List.of("role", "max-lag"));
            case REDIS -> keys.add("role");
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
            problems.add(doc.describe(path, "missing or empty (expected: a list of check names)"));
            return children;
        }
        Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < of.size(); i++) {
            String at = path + "[" + i + "]";
            String child = of.get(i).isTextual() ? of.get(i).asText() : of.get(i).toString();
            if (!known.containsKey(child) || child.equals(self)) {
                problems.add(doc.describe(at, "unknown check '" + child + "' (expected one of: "
                        + String.join(", ", known.keySet().stream().filter(n -> !n.equals(self)).sorted().toList())
                        + ")"));
            } else if (known.get(child)) {
                problems.add(doc.describe(at, "'" + child + "' is a calculated check (expected: a probe check)"));
            } else if (!seen.add(child)) {
                problems.add(doc.describe(at, "duplicate check '" + child + "'"));
            } else {
                children.add(child);
            }
        }
        return children;
    }

    private Aggregation atLeast(JsonNode node, String path, int children) {
        JsonNode k = node.get("k");
        if (!ConfigDocument.isWholeInt(k) || k.asInt() < 1 || k.asInt() > children) {
            problems.add(doc.describe(path, (k == null ? "missing" : k.toString())
                                            + " (expected: a whole number from 1 to " + children + ")"));
            return Aggregation.all();
        }
        return Aggregation.atLeast(k.asInt());
    }

    private Optional<PushConfig> push(JsonNode root) {
        JsonNode node = root.get("push");
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        JsonNode push = object(root, "push");
        keys(push, "push", List.of("url", "token-file", "token-env", "every", "ca", "allow-insecure"));
        String url = text(push, "push.url", null);
        URI uri = null;
        try {
            uri = url == null ? null : new URI(url);
        } catch (URISyntaxException e) {
            // reported below
        }
        if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
            || uri.getHost() == null) {
            problems.add(doc.describe("push.url", (url == null ? "missing" : "'" + url + "'")
                    + " (expected: an http(s) URL like https://control:8443/api/v1/health/cn)"));
        }
        String file = text(push, "push.token-file", null);
        Duration every = duration(push, "push.every", Duration.ofSeconds(10));
        if (uri == null || every.isZero()) {
            return Optional.empty();
        }
        String ca = text(push, "push.ca", null);
        JsonNode insecure = push.get("allow-insecure");
        if (insecure != null && !insecure.isBoolean()) {
            problems.add(doc.describe("push.allow-insecure", insecure + " (expected: true or false)"));
        }
        PushConfig config = new PushConfig(uri, file == null ? null : Path.of(file),
                                           text(push, "push.token-env", null), every, ca == null ? null : Path.of(ca),
                                           insecure != null && insecure.asBoolean());
        try {
            HealthPusher.client(config); // refuses cleartext to another host and a CA file that is not one
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            problems.add(message.startsWith("ca: ") ? doc.describe("push.ca", message.substring(4))
                         : doc.describe("push.url", message.replaceFirst("^control plane url: ", "")));
        }
        return Optional.of(config);
    }

    private void keys(JsonNode node, String path, List<String> allowed) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                problems.add(doc.describe(path.isEmpty() ? key : path + "." + key,
                        "unknown key (expected one of: " + String.join(", ", allowed) + ")"));
            }
        }
    }

    private JsonNode object(JsonNode parent, String path) {
        JsonNode node = parent.get(last(path));
        if (node == null || node.isNull()) {
            return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        }
        if (!node.isObject()) {
            problems.add(doc.describe(path, "not a mapping"));
            return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        }
        return node;
    }

    private String text(JsonNode parent, String path, String fallback) {
        JsonNode node = parent.get(last(path));
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isValueNode() || node.isBoolean()) {
            problems.add(doc.describe(path, node + " (expected: text)"));
            return fallback;
        }
        return node.asText();
    }

    private boolean bool(JsonNode parent, String path, boolean fallback) {
        JsonNode node = parent.get(last(path));
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isBoolean()) {
            problems.add(doc.describe(path, node + " (expected: true or false)"));
            return fallback;
        }
        return node.asBoolean();
    }

    private Duration duration(JsonNode parent, String path, Duration fallback) {
        String text = text(parent, path, null);
        if (text == null) {
            return fallback;
        }
        try {
            // max-lag 0 is meaningful (no lag allowed); every interval and timeout must be above 0.
            return path.endsWith("max-lag") ? DurationFormat.parse(text) : DurationFormat.parsePositive(text);
        } catch (IllegalArgumentException e) {
            problems.add(doc.describe(path, e.getMessage()));
            return fallback;
        }
    }

    private int count(JsonNode parent, String path, int fallback) {
        return wholeNumber(parent, path, fallback, 1, 100, "a whole number from 1 to 100");
    }

    private int port(JsonNode parent, String path, int fallback) {
        return wholeNumber(parent, path, fallback, 0, 65535, "a port from 0 to 65535; 0 picks a free one");
    }

    private int wholeNumber(JsonNode parent, String path, int fallback, int min, int max, String expected) {
        JsonNode node = parent.get(last(path));
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!ConfigDocument.isWholeInt(node) || node.asInt() < min || node.asInt() > max) {
            problems.add(doc.describe(path, node + " (expected: " + expected + ")"));
            return fallback;
        }
        return node.asInt();
    }

    private Gate gate(JsonNode node, String path) {
        String text = text(node, path, "healthy");
        for (Gate gate : Gate.values()) {
            if (gate.id().equals(text)) {
                return gate;
            }
        }
        problems.add(doc.describe(path, "'" + text + "' (expected: healthy, writable or none)"));
        return Gate.HEALTHY;
    }

    private static String last(String path) {
        return path.substring(path.lastIndexOf('.') + 1);
    }
}
