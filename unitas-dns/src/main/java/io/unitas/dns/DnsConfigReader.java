package io.unitas.dns;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import io.netty.util.NetUtil;
import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.internal.DocumentReader;
import io.unitas.config.internal.DurationFormat;
import io.unitas.config.TopologyFile;
import io.unitas.control.client.state.StateSource;
import io.unitas.control.client.internal.StateSourceReader;
import io.unitas.core.Region;
import io.unitas.core.Topology;

/** Reads {@code dns.yaml}, collecting every problem with its line before giving up. */
final class DnsConfigReader extends DocumentReader {

    private static final List<String> TOP = List.of("zone", "listen", "metrics", "ttl", "hold_down", "geo",
                                                    "records", "services", "nameservers", "hostmaster",
                                                    "static", "control_plane", "tcp", "rate_limit");
    private static final Pattern ENDPOINT = Pattern.compile("\\[?[^\\s/\\[\\]]+]?:\\d{1,5}");
    private static final Pattern LABEL = Pattern.compile("[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?");

    private final Path base;
    private String zone = "invalid.";
    private boolean zoneKnown = true;

    private DnsConfigReader(ConfigDocument doc, Path base) {
        super(doc);
        this.base = base;
    }

    static DnsConfig read(Path file) {
        return new DnsConfigReader(ConfigDocument.read(file), file.toAbsolutePath().getParent()).read();
    }

    private DnsConfig read() {
        JsonNode root = doc.root();
        if (!root.isObject()) {
            throw doc.error("", "not a mapping (expected: zone, listen, ttl, geo, records and static or"
                                + " control_plane)");
        }
        unknownKeys(root, "", TOP);
        zone = zone(root.get("zone"));
        InetSocketAddress listen = address(root.get("listen"), "listen", true);
        InetSocketAddress metrics = address(root.get("metrics"), "metrics", false);
        JsonNode ttl = object(root.get("ttl"), "ttl", List.of("base", "min"));
        long baseTtl = seconds(ttl.get("base"), "ttl.base", 300);
        long minTtl = seconds(ttl.get("min"), "ttl.min", 30);
        if (minTtl > baseTtl) {
            problem("ttl.min", minTtl + "s (expected: at most ttl.base, " + baseTtl + "s)");
        }
        Duration holdDown = DnsConfig.DEFAULT_HOLD_DOWN;
        String hd = text(root.get("hold_down"), "hold_down", null);
        if (hd != null) {
            try {
                holdDown = DurationFormat.parse(hd); // 0s turns the hold-down off
            } catch (IllegalArgumentException e) {
                problem("hold_down", e.getMessage());
            }
        }
        StateSource source = source();
        Set<Region> topology = topologyRegions(root);
        List<DnsConfig.Geo> geo = geo(root.get("geo"), topology);
        Set<Region> regions = new LinkedHashSet<>();
        geo.forEach(g -> regions.add(g.region()));
        regions.addAll(topology);
        Map<String, Map<Region, List<InetAddress>>> records = records(root.get("records"), regions);
        Map<String, Map<Region, List<DnsConfig.SrvTarget>>> services = services(root.get("services"), regions);
        records.keySet().stream().filter(services::containsKey)
               .forEach(n -> problem("services", n + " is also under records (expected: one of them)"));
        List<String> nameservers = nameservers(root.get("nameservers"));
        String hostmaster = name(text(root.get("hostmaster"), "hostmaster", "hostmaster"), "hostmaster", false);
        DnsConfig.Tcp tcp = tcp(root.get("tcp"));
        DnsConfig.RateLimit rateLimit = rateLimit(root.get("rate_limit"));
        throwIfProblems();
        return new DnsConfig(zone, listen, metrics, baseTtl, minTtl, holdDown, List.copyOf(geo),
                             Collections.unmodifiableMap(records), Collections.unmodifiableMap(services),
                             nameservers, hostmaster, source, tcp, rateLimit);
    }

    private DnsConfig.Tcp tcp(JsonNode node) {
        if (node == null) {
            return DnsConfig.Tcp.DEFAULT;
        }
        JsonNode t = object(node, "tcp", List.of("max_connections", "idle_timeout"));
        int max = wholeNumber(t.get("max_connections"), "tcp.max_connections",
                              DnsConfig.Tcp.DEFAULT_MAX_CONNECTIONS, 1, 1_000_000, "a count from 1 to 1000000");
        Duration idle = duration(t.get("idle_timeout"), "tcp.idle_timeout", DnsConfig.Tcp.DEFAULT_IDLE_TIMEOUT);
        return new DnsConfig.Tcp(max, idle);
    }

    private DnsConfig.RateLimit rateLimit(JsonNode node) {
        if (node == null) {
            return null;
        }
        JsonNode r = object(node, "rate_limit", List.of("responses_per_second", "slip", "ipv4_prefix", "ipv6_prefix",
                                                        "table_size"));
        if (r.get("responses_per_second") == null) {
            problem("rate_limit.responses_per_second", "missing (expected: answers a second per client network and"
                                                       + " answer, e.g. 10)");
        }
        int rate = wholeNumber(r.get("responses_per_second"), "rate_limit.responses_per_second", 10, 1, 1_000_000,
                               "a rate from 1 to 1000000");
        int slip = wholeNumber(r.get("slip"), "rate_limit.slip", DnsConfig.RateLimit.DEFAULT_SLIP, 0, 10,
                               "0 (drop every limited answer) to 10");
        int v4 = wholeNumber(r.get("ipv4_prefix"), "rate_limit.ipv4_prefix", 24, 0, 32, "a prefix from 0 to 32");
        int v6 = wholeNumber(r.get("ipv6_prefix"), "rate_limit.ipv6_prefix", 56, 0, 64, "a prefix from 0 to 64");
        int table = wholeNumber(r.get("table_size"), "rate_limit.table_size", DnsConfig.RateLimit.DEFAULT_TABLE_SIZE,
                                1024, 1 << 24, "a count from 1024 to 16777216");
        return new DnsConfig.RateLimit(rate, slip, v4, v6, table);
    }

    private String zone(JsonNode node) {
        String text = text(node, "zone", null);
        if (text == null) {
            problem("zone", "missing (expected: the zone's name with its final dot, e.g. shop.example.)");
            return zone;
        }
        String z = text.toLowerCase(java.util.Locale.ROOT);
        String bare = z.endsWith(".") ? z.substring(0, z.length() - 1) : z;
        if (!z.endsWith(".") || !labels(bare)) {
            problem("zone", "'" + text + "' (expected: a domain name with its final dot, e.g. shop.example.)");
        }
        if (!labels(bare)) {
            zoneKnown = false; // names cannot be checked against it
            return zone;
        }
        return bare + ".";
    }

    private InetSocketAddress address(JsonNode node, String path, boolean required) {
        String text = text(node, path, null);
        if (text == null) {
            if (required) {
                problem(path, "missing (expected: host:port, e.g. 127.0.0.1:5353)");
            }
            return required ? new InetSocketAddress("127.0.0.1", 0) : null;
        }
        int colon = text.lastIndexOf(':');
        if (!ENDPOINT.matcher(text).matches() || Integer.parseInt(text.substring(colon + 1)) > 65535) {
            problem(path, "'" + text + "' (expected: host:port, e.g. 127.0.0.1:5353)");
            return new InetSocketAddress("127.0.0.1", 0);
        }
        String host = text.substring(0, colon).replace("[", "").replace("]", "");
        return new InetSocketAddress(host, Integer.parseInt(text.substring(colon + 1)));
    }

    private long seconds(JsonNode node, String path, long fallback) {
        Duration d = duration(node, path, Duration.ofSeconds(fallback));
        if (d.toMillis() % 1000 != 0 || d.toSeconds() > Integer.MAX_VALUE) {
            problem(path, text(node, path, "") + " (expected: whole seconds, at most 68 years)");
            return fallback;
        }
        return d.toSeconds();
    }

    private StateSource source() {
        try {
            return StateSourceReader.read(doc, base, false);
        } catch (ConfigException e) {
            problems(e);
            return null;
        }
    }

    /** The regions of a static topology file, so records can be checked against them; none when unreadable. */
    private Set<Region> topologyRegions(JsonNode root) {
        JsonNode file = root.path("static").path("topology");
        if (file.isTextual()) {
            try {
                Topology t = TopologyFile.parse(ConfigDocument.read(base.resolve(file.asText()).normalize()));
                return new LinkedHashSet<>(t.regions());
            } catch (RuntimeException e) {
                problem("static.topology", e.getMessage());
            }
        }
        return Set.of();
    }

    /** The {@code geo} list; with a static topology, its regions must be the topology's. */
    private List<DnsConfig.Geo> geo(JsonNode node, Set<Region> topology) {
        List<DnsConfig.Geo> out = new ArrayList<>();
        if (node == null || !node.isArray() || node.isEmpty()) {
            problem("geo", "expected a non-empty list of {cidr, region}");
            return out;
        }
        for (int i = 0; i < node.size(); i++) {
            String path = "geo[" + i + "]";
            JsonNode e = object(node.get(i), path, List.of("cidr", "region"));
            String cidr = text(e.get("cidr"), path + ".cidr", null);
            Region region = region(e.get("region"), path + ".region");
            if (region != null && !topology.isEmpty() && !topology.contains(region)) {
                problem(path + ".region", "'" + region + "' is not in the topology (expected one of: "
                                          + ids(topology) + ")");
            }
            if (cidr == null) {
                problem(path + ".cidr", "missing (expected: a network such as 10.1.0.0/16)");
                continue;
            }
            try {
                Cidr c = Cidr.parse(cidr);
                if (region != null) {
                    out.add(new DnsConfig.Geo(c, region));
                }
            } catch (IllegalArgumentException bad) {
                problem(path + ".cidr", bad.getMessage());
            }
        }
        return out;
    }

    private Region region(JsonNode node, String path) {
        String id = text(node, path, null);
        if (id == null || !Region.isValidId(id)) {
            problem(path, "'" + id + "' (expected: a region id: lowercase letters, digits, '-' or '_')");
            return null;
        }
        return Region.of(id);
    }

    private Map<String, Map<Region, List<InetAddress>>> records(JsonNode node, Set<Region> regions) {
        Map<String, Map<Region, List<InetAddress>>> out = new LinkedHashMap<>();
        if (node == null) {
            return out;
        }
        if (!node.isObject()) {
            problem("records", "not a mapping (expected: name: {region: [addresses]})");
            return out;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String path = "records." + e.getKey();
            String name = name(e.getKey(), path, false);
            Map<Region, List<InetAddress>> byRegion = new LinkedHashMap<>();
            perRegion(e.getValue(), path, regions, (region, list, p) -> {
                List<InetAddress> addresses = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    String a = list.get(i).asText();
                    byte[] bytes = list.get(i).isTextual() ? NetUtil.createByteArrayFromIpAddressString(a) : null;
                    if (bytes == null) {
                        problem(p + "[" + i + "]", "'" + a + "' (expected: an IPv4 or IPv6 address)");
                        continue;
                    }
                    try {
                        addresses.add(InetAddress.getByAddress(bytes));
                    } catch (UnknownHostException impossible) {
                        throw new IllegalStateException(impossible);
                    }
                }
                byRegion.put(region, List.copyOf(addresses));
            });
            if (name != null) {
                out.put(name, Map.copyOf(byRegion));
            }
        }
        return out;
    }

    private Map<String, Map<Region, List<DnsConfig.SrvTarget>>> services(JsonNode node, Set<Region> regions) {
        Map<String, Map<Region, List<DnsConfig.SrvTarget>>> out = new LinkedHashMap<>();
        if (node == null) {
            return out;
        }
        if (!node.isObject()) {
            problem("services", "not a mapping (expected: _name._proto: {region: [{target, port, weight}]})");
            return out;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String path = "services." + e.getKey();
            String name = name(e.getKey(), path, false);
            if (name != null && !(name.startsWith("_") && name.indexOf("._") > 0)) {
                problem(path, "'" + e.getKey() + "' (expected: _service._proto, e.g. _api._tcp)");
            }
            Map<Region, List<DnsConfig.SrvTarget>> byRegion = new LinkedHashMap<>();
            perRegion(e.getValue(), path, regions, (region, list, p) -> {
                List<DnsConfig.SrvTarget> targets = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    String tp = p + "[" + i + "]";
                    JsonNode t = object(list.get(i), tp, List.of("target", "port", "weight"));
                    String target = text(t.get("target"), tp + ".target", null);
                    if (target == null) {
                        problem(tp + ".target", "missing (expected: a host name)");
                    }
                    String host = target == null ? null : name(target, tp + ".target", true);
                    int port = wholeNumber(t.get("port"), tp + ".port", -1, 0, 65535, "a port from 0 to 65535");
                    if (t.get("port") == null) {
                        problem(tp + ".port", "missing (expected: a port from 0 to 65535)");
                    }
                    int weight = wholeNumber(t.get("weight"), tp + ".weight", 1, 0, 65535,
                                             "a weight from 0 to 65535");
                    if (host != null && port >= 0) {
                        targets.add(new DnsConfig.SrvTarget(host, port, weight));
                    }
                }
                byRegion.put(region, List.copyOf(targets));
            });
            if (name != null) {
                out.put(name, Map.copyOf(byRegion));
            }
        }
        return out;
    }

    /** What to do with one region's list under a record or service. */
    private interface RegionList {
        void read(Region region, JsonNode list, String path);
    }

    /** Reads {@code region: [..]} entries, with a problem for every known region missing and every unknown one. */
    private void perRegion(JsonNode node, String path, Set<Region> regions, RegionList each) {
        if (node == null || !node.isObject()) {
            problem(path, "not a mapping (expected: region: [...] for each of " + ids(regions) + ")");
            return;
        }
        Set<Region> seen = new LinkedHashSet<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String p = path + "." + e.getKey();
            if (!Region.isValidId(e.getKey())) {
                problem(p, "'" + e.getKey() + "' (expected: a region id)");
                continue;
            }
            Region region = Region.of(e.getKey());
            if (!regions.isEmpty() && !regions.contains(region)) {
                problem(p, "unknown region (expected one of: " + ids(regions) + ")");
            }
            seen.add(region);
            JsonNode list = e.getValue();
            if (list == null || !list.isArray()) {
                problem(p, "not a list (expected: [...])");
                continue;
            }
            each.read(region, list, p);
        }
        for (Region r : regions) {
            if (!seen.contains(r)) {
                problem(path, "region " + r + " missing (expected: an entry for every region: " + ids(regions) + ")");
            }
        }
    }

    private List<String> nameservers(JsonNode node) {
        if (node == null) {
            return List.of("ns1." + zone);
        }
        List<String> out = new ArrayList<>();
        if (!node.isArray() || node.isEmpty()) {
            problem("nameservers", "expected a non-empty list of host names");
            return List.of("ns1." + zone);
        }
        for (int i = 0; i < node.size(); i++) {
            String n = name(node.get(i).asText(), "nameservers[" + i + "]", true);
            if (n != null) {
                out.add(n);
            }
        }
        return out.isEmpty() ? List.of("ns1." + zone) : List.copyOf(out);
    }

    /**
     * The absolute, lower-case form of {@code text}: relative to the zone unless it ends with a dot ({@code @} is
     * the apex); {@code anywhere} allows absolute names outside the zone (targets, name servers).
     */
    private String name(String text, String path, boolean anywhere) {
        String t = text.toLowerCase(java.util.Locale.ROOT);
        String abs = t.equals("@") ? zone : t.endsWith(".") ? t : t + "." + zone;
        if (abs.length() > 254 || !labels(abs.substring(0, abs.length() - 1))) {
            problem(path, "'" + text + "' (expected: a domain name, labels of letters, digits, '-' and '_')");
            return null;
        }
        if (!anywhere && zoneKnown && !(abs.equals(zone) || abs.endsWith("." + zone))) {
            problem(path, "'" + text + "' is outside the zone " + zone);
            return null;
        }
        return abs;
    }

    private static boolean labels(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (String label : name.split("\\.", -1)) {
            if (!LABEL.matcher(label).matches()) {
                return false;
            }
        }
        return true;
    }

    private static String ids(Set<Region> regions) {
        List<String> ids = new ArrayList<>();
        regions.forEach(r -> ids.add(r.id()));
        return String.join(", ", ids);
    }
}
