package io.unitas.dns;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.unitas.control.client.state.StateSource;
import io.unitas.core.Region;

/**
 * What {@code unitas dns} is told ({@code dns.yaml}): the zone it is authoritative for, where it listens, the TTL
 * formula's base and floor, where clients are ({@code geo}), each name's addresses and SRV targets per region, and
 * where the routing state comes from (as the gateway's). Read it with {@link #read(Path)}.
 *
 * @param zone        the zone, lower case with its final dot ({@code shop.example.})
 * @param listen      the UDP and TCP address (port 0: any free one)
 * @param metrics     the HTTP address of {@code /metrics}, or {@code null} for none
 * @param baseTtl     seconds: the TTL of a region of score 1
 * @param minTtl      seconds: the floor of the formula, the TTL of failover and negative answers
 * @param holdDown    how long a recovered region waits before it answers again (the router's hold-down)
 * @param geo         networks and their regions; the most specific holding a client's address wins
 * @param records     absolute name → region → its A and AAAA addresses
 * @param services    absolute SRV owner name ({@code _api._tcp.shop.example.}) → region → targets
 * @param nameservers the zone's NS names, absolute; the first is the SOA's primary
 * @param hostmaster  the SOA's mailbox as a name ({@code hostmaster.shop.example.})
 * @param source      where region health and topology come from
 * @param tcp         the bounds of DNS over TCP
 * @param rateLimit   response-rate limiting of UDP answers, or {@code null} for none
 */
public record DnsConfig(String zone, InetSocketAddress listen, InetSocketAddress metrics, long baseTtl, long minTtl,
                        Duration holdDown, List<Geo> geo, Map<String, Map<Region, List<InetAddress>>> records,
                        Map<String, Map<Region, List<SrvTarget>>> services, List<String> nameservers,
                        String hostmaster, StateSource source, Tcp tcp, RateLimit rateLimit) {

    /** The hold-down when the file gives none: the gateway's. */
    public static final Duration DEFAULT_HOLD_DOWN = Duration.ofSeconds(5);

    /** Reads and checks {@code file}, naming every problem with its line ({@link io.unitas.config.ConfigException}). */
    public static DnsConfig read(Path file) {
        return DnsConfigReader.read(file);
    }

    /**
     * One {@code geo} entry: clients whose address is in {@code cidr} are in {@code region}.
     *
     * @param cidr   the network
     * @param region its clients' region
     */
    public record Geo(Cidr cidr, Region region) {
    }

    /**
     * One SRV target (RFC 2782).
     *
     * @param target the host, an absolute name
     * @param port   its port
     * @param weight its share among the targets of the same priority, 0 to 65535
     */
    public record SrvTarget(String target, int port, int weight) {
    }

    /**
     * The bounds of DNS over TCP ({@code tcp:}). A connection's unsent answers and unread queries are bounded in any
     * case (past {@link Tcp#MAX_UNSENT_BYTES} of answers the server stops reading it until the client reads).
     *
     * @param maxConnections connections open at once; one more is closed as it is accepted
     * @param idleTimeout    how long a connection may go without completing a query (a connection that trickles
     *                       bytes without completing one is closed at this deadline all the same)
     */
    public record Tcp(int maxConnections, Duration idleTimeout) {

        /** The connections open at once when the file says nothing. */
        public static final int DEFAULT_MAX_CONNECTIONS = 1000;
        /** The idle deadline when the file says nothing (RFC 7766 §6.2.3 suggests seconds). */
        public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(10);
        /** The bytes of answers one connection may have waiting to be sent before the server stops reading it. */
        public static final int MAX_UNSENT_BYTES = 64 << 10;
        /** The defaults. */
        public static final Tcp DEFAULT = new Tcp(DEFAULT_MAX_CONNECTIONS, DEFAULT_IDLE_TIMEOUT);
    }

    /**
     * Response-rate limiting of UDP answers ({@code rate_limit:}), in BIND's manner: see {@link ResponseRateLimiter}.
     *
     * @param responsesPerSecond answers a second per client network and answer, and as many at once
     * @param slip               every slip-th limited answer is sent truncated (TC) rather than dropped; 0: none
     * @param ipv4Prefix         the bits of an IPv4 source that make its network (BIND's default: 24)
     * @param ipv6Prefix         the bits of an IPv6 source that make its network, at most 64 (BIND's default: 56)
     * @param tableSize          the buckets kept (rounded up to a power of two): memory is fixed, whatever the flood
     */
    public record RateLimit(int responsesPerSecond, int slip, int ipv4Prefix, int ipv6Prefix, int tableSize) {

        /** The slip when the file gives none: BIND's. */
        public static final int DEFAULT_SLIP = 2;
        /** The buckets kept when the file gives none (about 1.3 MB). */
        public static final int DEFAULT_TABLE_SIZE = 65_536;
    }
}
