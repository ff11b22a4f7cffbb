package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.dns.DnsConfig;
import io.unitas.dns.DnsServer;
import io.unitas.resolver.FallbackPool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The playground's entry tier: a {@code unitas dns} server in this process, authoritative for {@link #ZONE} and
 * following the control plane's watch as the gateways do, whose SRV service {@link #SERVICE} names each region's
 * gateway; and the fallback pool file its clients switch to when it fails (seed 003 §2.5), holding the gateways'
 * address. It reads the {@code dns.yaml} it writes into the work directory, so what runs here is what
 * {@code unitas dns --config dns.yaml} runs.
 */
final class EntryDns implements AutoCloseable {

    static final String ZONE = "shop.example.";
    /** The SRV service of the gateways: a region's own at priority 10, its fallback order's at 20, 30… */
    static final String SERVICE = "_shop._tcp.shop.example";
    /**
     * The TTL formula's base and floor: short, so that a drill's clients ask again within its fault window and a
     * stopped server is noticed (the seed's 300 s and 30 s are for the Internet's resolvers, not a 20 s drill).
     */
    private static final String TTL = "{base: 5s, min: 1s}";

    private final Layout layout;
    private final Path config;
    private final Path pool;
    private DnsServer server;

    private EntryDns(Layout layout, Path config, Path pool) {
        this.layout = layout;
        this.config = config;
        this.pool = pool;
    }

    /** Writes {@code dns.yaml} and the fallback pool into {@code dir} and starts the server. */
    static EntryDns start(Layout layout, Path dir, URI control, Path viewerToken) {
        try {
            Path config = Files.writeString(dir.resolve("dns.yaml"), yaml(layout, layout.dnsPort(), control,
                                                                           viewerToken, dir.resolve("dns.state.json")));
            Path pool = dir.resolve("dns-fallback.bin");
            // Every gateway listens on loopback; the pool's addresses carry no port, a service's fallback port is used.
            Path next = dir.resolve("dns-fallback.bin.new");
            Files.write(next, new FallbackPool(List.of(InetAddress.getLoopbackAddress())).encodeBinary());
            Files.move(next, pool, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            EntryDns dns = new EntryDns(layout, config, pool);
            dns.startServer();
            return dns;
        } catch (IOException e) {
            throw new UncheckedIOException("playground: cannot write the DNS server's files", e);
        }
    }

    /**
     * The {@code dns.yaml} of a server answering for {@link #ZONE} on {@code port}, fed by the control plane's watch
     * and keeping its last state in {@code stateFile}: the playground's one, and each region's of the process
     * deployment.
     */
    static String yaml(Layout layout, int port, URI control, Path viewerToken, Path stateFile) {
        StringBuilder y = new StringBuilder();
        y.append("zone: ").append(ZONE).append('\n')
         .append("listen: 127.0.0.1:").append(port).append('\n')
         .append("ttl: ").append(TTL).append('\n')
         .append("geo:                 # region i's clients carry 10.(i + 1).0.0/16 as their client subnet\n");
        for (Region r : layout.regions()) {
            y.append("  - {cidr: ").append(layout.clientNetwork(r)).append(", region: ").append(r.id()).append("}\n");
        }
        y.append("records:             # every gateway runs on loopback, whoever asks\n");
        for (Region g : layout.regions()) {
            y.append("  gw-").append(g.id()).append(": {");
            for (int i = 0; i < layout.regions().size(); i++) {
                y.append(i == 0 ? "" : ", ").append(layout.regions().get(i).id()).append(": [127.0.0.1]");
            }
            y.append("}\n");
        }
        y.append("services:\n  _shop._tcp:\n");
        for (Region r : layout.regions()) {
            y.append("    ").append(r.id()).append(": [{target: gw-").append(r.id()).append(", port: ")
             .append(layout.gatewayPort(r)).append(", weight: 100}]\n");
        }
        y.append("control_plane: {url: '").append(control).append("', token_file: '").append(viewerToken)
         .append("', state_file: '").append(stateFile).append("'}\n");
        return y.toString();
    }

    /** Where the server answers. */
    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), layout.dnsPort());
    }

    /** The fallback pool file (binary, seed 003 §2.5). */
    Path pool() {
        return pool;
    }

    /** Starts the server again on the same port and state file; nothing when it runs. */
    synchronized void startServer() {
        if (server == null) {
            server = DnsServer.start(DnsConfig.read(config));
        }
    }

    /** Stops the server (UDP and TCP): queries go unanswered, as when a DNS server dies. */
    synchronized void stopServer() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    @Override
    public void close() {
        stopServer();
    }
}
