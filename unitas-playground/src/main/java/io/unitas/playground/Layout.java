package io.unitas.playground;

import io.unitas.config.UnitRulesFile;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.MissingKeyAction;
import io.unitas.core.rules.UnitRules;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The playground's model and ports, all derived from the region list and the first port: region {@code i} owns
 * unit {@code u-<region>} and user ids whose value mod {@code 1000 × regions} lies in {@code [1000 i, 1000 i +
 * 999]}; the control plane listens on the first port, the entry DNS server on the next (UDP and TCP), the process
 * deployment's Kafka broker on the two after (clients, its controller), region
 * {@code i}'s processes on {@code first + 10 (i + 1)} onwards (gateway, health HTTP, health gRPC, shop a, shop b,
 * home reads, database, the example's order and inventory services), after the regions the process deployment's
 * links between regions ({@link #linkPort}, {@link #kafkaLinkPort}), and after those three ports per region for the
 * process deployment's second example instances and example gateway ({@link #exampleOrderPorts}). Region {@code i}'s
 * clients are in the network
 * {@code 10.(i + 1).0.0/16} for the DNS server's geo map.
 */
record Layout(List<Region> regions, int portsFrom) {

    static final int USERS_PER_UNIT = 1000;
    /** The ports per region after the regions' blocks: the second order and inventory instances, the example gateway. */
    static final int EXAMPLE_PORTS = 3;

    Layout {
        regions = List.copyOf(regions);
        if (regions.size() < 2) {
            throw new IllegalArgumentException("regions: " + regions + " (expected: at least 2)");
        }
        if (regions.stream().distinct().count() != regions.size()) {
            throw new IllegalArgumentException("regions: " + regions + " (expected: each once)");
        }
        int span = 10 * (regions.size() + 1) + linkPorts(regions.size()) + EXAMPLE_PORTS * regions.size();
        if (portsFrom < 1024 || portsFrom + span - 1 > 65_535) {
            throw new IllegalArgumentException("ports-from: " + portsFrom + " (expected: 1024.." + (65_536 - span)
                                               + " for " + regions.size() + " regions)");
        }
    }

    int controlPort() {
        return portsFrom;
    }

    /** Where the playground's {@code unitas dns} answers, over UDP and TCP. */
    int dnsPort() {
        return portsFrom + 1;
    }

    /** The most regions whose DNS servers fit in the control plane's ten ports ({@link #regionDnsPort}). */
    static final int MAX_DNS_REGIONS = 6;

    /**
     * Where region {@code r}'s own {@code unitas dns} answers in the process deployment, over UDP and TCP: the control
     * plane's ports from 4 on, one per region.
     */
    int regionDnsPort(Region r) {
        int i = regions.indexOf(r);
        if (i < 0 || i >= MAX_DNS_REGIONS) {
            throw new IllegalArgumentException("region: " + r + " (expected: one of the first " + MAX_DNS_REGIONS
                                               + " of " + regions + ")");
        }
        return portsFrom + 4 + i;
    }

    /** Where the process deployment's Kafka broker takes clients. */
    int kafkaPort() {
        return portsFrom + 2;
    }

    /** Where the process deployment's Kafka node answers its own KRaft quorum. */
    int kafkaControllerPort() {
        return portsFrom + 3;
    }

    /**
     * The network region {@code r}'s clients are in, as the DNS server's geo map places them: they carry it as
     * their EDNS Client Subnet, since on one host every client's source address is loopback.
     */
    String clientNetwork(Region r) {
        int i = regions.indexOf(r);
        if (i < 0) {
            throw new IllegalArgumentException("region: " + r + " (expected: one of " + regions + ")");
        }
        return "10." + (i + 1) + ".0.0/16";
    }

    int gatewayPort(Region r) {
        return base(r);
    }

    int healthPort(Region r) {
        return base(r) + 1;
    }

    int healthGrpcPort(Region r) {
        return base(r) + 2;
    }

    List<Integer> shopPorts(Region r) {
        return List.of(base(r) + 3, base(r) + 4);
    }

    /** Where the region serves home reads of its store to the other regions. */
    int homeReadPort(Region r) {
        return base(r) + 5;
    }

    /** Where the region's service instance {@code i} (0 or 1) serves home reads, as separate processes. */
    int homeReadPort(Region r, int i) {
        return i == 0 ? homeReadPort(r) : base(r) + 9;
    }

    /** Where the region's own database listens, when it runs one ({@code --store postgres}). */
    int databasePort(Region r) {
        return base(r) + 6;
    }

    /** Where the region's order service of the example listens, when it runs ({@code --with-example}). */
    int exampleOrderPort(Region r) {
        return base(r) + 7;
    }

    /** Where the region's inventory service of the example listens, when it runs. */
    int exampleInventoryPort(Region r) {
        return base(r) + 8;
    }

    /** Where the region's order instances listen as processes: the in-process one's port, then one after the regions. */
    List<Integer> exampleOrderPorts(Region r) {
        return List.of(exampleOrderPort(r), exampleFrom(r));
    }

    /** Where the region's inventory instances listen as processes, as {@link #exampleOrderPorts}. */
    List<Integer> exampleInventoryPorts(Region r) {
        return List.of(exampleInventoryPort(r), exampleFrom(r) + 1);
    }

    /** Where the process deployment's gateway of the example listens in region {@code r}. */
    int exampleGatewayPort(Region r) {
        return exampleFrom(r) + 2;
    }

    private int exampleFrom(Region r) {
        return linksFrom() + linkPorts(regions.size()) + EXAMPLE_PORTS * index(r);
    }

    /**
     * Where the deployment's proxy of the link from {@code from}'s processes to {@code to}'s endpoint listens
     * ({@link LinkProxy}): {@code slot} 0 is {@code to}'s gateway, 1 and 2 its wallet instances' home reads. Three
     * per ordered pair of regions, after the regions' ports.
     */
    int linkPort(Region from, Region to, int slot) {
        int i = index(from);
        int j = index(to);
        if (i == j || slot < 0 || slot > 2) {
            throw new IllegalArgumentException("link: " + from + " to " + to + " slot " + slot
                                               + " (expected: two regions, slot 0..2)");
        }
        int pair = (regions.size() - 1) * i + (j < i ? j : j - 1);
        return linksFrom() + 3 * pair + slot;
    }

    /** Where the proxy of region {@code r}'s link to the Kafka broker listens (what its wallets bootstrap from). */
    int kafkaLinkPort(Region r) {
        int n = regions.size();
        return linksFrom() + 3 * n * (n - 1) + 2 * index(r);
    }

    /** The broker's own listener for region {@code r}, behind {@link #kafkaLinkPort}, which it advertises. */
    int kafkaRegionPort(Region r) {
        return kafkaLinkPort(r) + 1;
    }

    private int linksFrom() {
        return portsFrom + 10 * (regions.size() + 1);
    }

    /** The link ports of {@code n} regions: three per ordered pair, two per region for its broker link. */
    private static int linkPorts(int n) {
        return 3 * n * (n - 1) + 2 * n;
    }

    private int index(Region r) {
        int i = regions.indexOf(r);
        if (i < 0) {
            throw new IllegalArgumentException("region: " + r + " (expected: one of " + regions + ")");
        }
        return i;
    }

    private int base(Region r) {
        int i = regions.indexOf(r);
        if (i < 0) {
            throw new IllegalArgumentException("region: " + r + " (expected: one of " + regions + ")");
        }
        return portsFrom + 10 * (i + 1);
    }

    /** The center is the first region; the fallback order is the listed order. */
    Topology topology() {
        Topology.Builder b = Topology.builder();
        regions.forEach(r -> b.region(r.id(), 100.0));
        return b.center(regions.get(0).id()).build();
    }

    UnitRules rules() {
        UnitRules.Builder b = UnitRules.builder()
                                       .source(KeySource.header(ShopServer.USER_HEADER))
                                       .transform(KeyTransform.mod((long) USERS_PER_UNIT * regions.size()))
                                       .missing(MissingKeyAction.REJECT);
        for (int i = 0; i < regions.size(); i++) {
            String unit = unitOf(regions.get(i));
            b.unit(unit, regions.get(i).id()).range((long) i * USERS_PER_UNIT, (long) i * USERS_PER_UNIT
                                                                               + USERS_PER_UNIT - 1, unit);
        }
        return b.build(topology());
    }

    static String unitOf(Region r) {
        return "u-" + r.id();
    }

    /** The {@code seq}-th user id whose home is {@code home}. */
    String userId(Region home, long seq) {
        long span = (long) USERS_PER_UNIT * regions.size();
        return Long.toString(seq / USERS_PER_UNIT * span + regions.indexOf(home) * (long) USERS_PER_UNIT
                             + seq % USERS_PER_UNIT);
    }

    String topologyJson() {
        return regions.stream().map(r -> "{\"id\":\"" + r.id() + "\",\"capacity\":100}")
                      .collect(Collectors.joining(",", "{\"regions\":[", "],\"center\":\"" + regions.get(0).id()
                                                                       + "\"}"));
    }

    String rulesJson() {
        return UnitRulesFile.toTree(rules()).toString();
    }
}
