package io.unitas.gateway;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.unitas.control.client.state.StateSource;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.fence.Writes;

/**
 * Everything {@code gateway.yaml} says: the gateway's own region and listen address, the upstream endpoints of
 * each region, where routing state comes from (a control plane, or static files), header names and the
 * resilience knobs. Read it with {@link #read(Path)}.
 *
 * @param region       the region this gateway runs in
 * @param listen       the address to serve HTTP/1.1 and HTTP/2 on
 * @param tls          the gateway's certificate, with which it serves TLS; {@code null} for cleartext (h2c)
 * @param workers      event loops, each serving its share of connections with its own upstream connections (as
 *                     nginx's worker processes); 0 for one per core
 * @param transport    the socket layer: io_uring, epoll, Java NIO, or the best of them this machine offers
 * @param shortTimeSlices whether the event loops ask the scheduler for its shortest time slice (0.1 ms), so that a
 *                     loop woken while others hold every CPU runs within that, not after their slices end
 * @param upstreams    per region: its own services for {@link #region()}, the region's gateways for the others
 * @param source       where rules, health and fences come from
 * @param headers      the header names used along the call chain
 * @param hopLimit     the most unitas gateways a request may pass before it is answered 508
 * @param writes       the requests a write fence stops: by method, less the read paths
 * @param resilience   health checks, outlier ejection, timeouts and retries
 * @param accessLog    where access log lines go: {@code stdout}, {@code stderr}, {@code off} or a file path
 * @param routing      hold-down, the read-only policy of writes, and whose stamps are trusted
 * @param limits       how many client connections may be open and how long they may take over a request head or
 *                     stay idle
 * @param admin        where the gateway's {@code /metrics} and the details of {@code /unitas/healthz} are served, and
 *                     whether they ask for a token
 */
public record GatewayConfig(Region region, InetSocketAddress listen, Certificate tls, int workers,
                            TransportKind transport, boolean shortTimeSlices, Map<Region, Upstream> upstreams,
                            StateSource source, Headers headers, int hopLimit, Writes writes,
                            Resilience resilience, String accessLog, Routing routing, Limits limits, Admin admin) {

    /** As the canonical constructor, with the gateway's own endpoints {@link Admin#OPEN} as before {@code admin}. */
    public GatewayConfig(Region region, InetSocketAddress listen, Certificate tls, int workers,
                         TransportKind transport, boolean shortTimeSlices, Map<Region, Upstream> upstreams,
                         StateSource source, Headers headers, int hopLimit, Writes writes,
                         Resilience resilience, String accessLog, Routing routing, Limits limits) {
        this(region, listen, tls, workers, transport, shortTimeSlices, upstreams, source, headers, hopLimit, writes,
             resilience, accessLog, routing, limits, Admin.OPEN);
    }

    /** Freezes the collections. */
    public GatewayConfig {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(transport, "transport");
        upstreams = Map.copyOf(upstreams);
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(writes, "writes");
        Objects.requireNonNull(resilience, "resilience");
        Objects.requireNonNull(accessLog, "accessLog");
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(admin, "admin");
    }

    /** Reads {@code file} (YAML or JSON), or throws {@link io.unitas.config.ConfigException} naming every problem. */
    public static GatewayConfig read(Path file) {
        return GatewayConfigReader.read(file);
    }

    /** A copy listening on {@code address}; for tests and embedding that pick ports at run time. */
    public GatewayConfig withListen(InetSocketAddress address) {
        return new GatewayConfig(region, address, tls, workers, transport, shortTimeSlices, upstreams, source, headers,
                                 hopLimit, writes, resilience, accessLog, routing, limits, admin);
    }

    /** A copy routing by {@code routing}; for tests and embedding. */
    public GatewayConfig withRouting(Routing routing) {
        return new GatewayConfig(region, listen, tls, workers, transport, shortTimeSlices, upstreams, source, headers,
                                 hopLimit, writes, resilience, accessLog, routing, limits, admin);
    }

    /** A copy with {@code limits} on client connections; for tests and embedding. */
    public GatewayConfig withLimits(Limits limits) {
        return new GatewayConfig(region, listen, tls, workers, transport, shortTimeSlices, upstreams, source, headers,
                                 hopLimit, writes, resilience, accessLog, routing, limits, admin);
    }

    /** What {@code transport} may say; {@code auto} takes io_uring where the kernel allows it, else epoll, else NIO. */
    public enum TransportKind {
        AUTO, IO_URING, EPOLL, NIO;

        /** The name in {@code gateway.yaml}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * How the route decision treats flapping regions and partial health, and whose stamps it follows.
     *
     * @param holdDown        how long a region must have been healthy before traffic returns to it
     * @param onReadOnly      what a write meets when its serving region is read-only, for units not listed in
     *                        {@code onReadOnlyUnits}: refused ({@code fence}, 503 with Retry-After) or sent to the
     *                        next writable region ({@code failover}, where the data layer allows it)
     * @param onReadOnlyUnits per unit, the same choice
     * @param trustedPeers    address ranges (other regions' gateways) whose requests may carry stamps; every other
     *                        request has its {@code x-unitas-*} and configured stamp headers removed
     */
    public record Routing(Duration holdDown, ReadOnlyPolicy onReadOnly, Map<String, ReadOnlyPolicy> onReadOnlyUnits,
                          List<String> trustedPeers) {

        /** 5 s of hold-down, writes fenced on a read-only region, no trusted peers. */
        public static final Routing DEFAULTS = new Routing(Duration.ofSeconds(5), ReadOnlyPolicy.FENCE, Map.of(),
                                                           List.of());

        /** Freezes the collections and checks the ranges. */
        public Routing {
            Objects.requireNonNull(holdDown, "holdDown");
            Objects.requireNonNull(onReadOnly, "onReadOnly");
            onReadOnlyUnits = Map.copyOf(onReadOnlyUnits);
            trustedPeers = List.copyOf(trustedPeers);
            TrustedPeers.of(trustedPeers);
        }

        /** The read-only policy of {@code unit} ({@code null}: the default). Allocation-free. */
        public ReadOnlyPolicy onReadOnly(String unit) {
            ReadOnlyPolicy p = unit == null ? null : onReadOnlyUnits.get(unit);
            return p == null ? onReadOnly : p;
        }
    }

    /**
     * The endpoints requests to one region go to.
     *
     * @param endpoints   the default endpoints ({@code host:port})
     * @param versions    per service version, the endpoints running it, chosen by gray rules
     * @param healthCheck the path actively checked on these endpoints, {@link #GRPC_HEALTH} for the gRPC health
     *                    service, or {@code null} for the configured default ({@code /unitas/healthz} suits another
     *                    region's gateways)
     * @param protocol    how the gateway speaks to these endpoints
     * @param tls         TLS to these endpoints, or {@code null} for cleartext
     */
    public record Upstream(List<String> endpoints, Map<String, List<String>> versions, String healthCheck,
                           Protocol protocol, Tls tls) {

        /** The health check that asks {@code grpc.health.v1.Health/Check} for the server as a whole. */
        public static final String GRPC_HEALTH = "grpc";

        /** Freezes the lists. */
        public Upstream {
            endpoints = List.copyOf(endpoints);
            versions = Map.copyOf(versions);
            Objects.requireNonNull(protocol, "protocol");
            if (protocol == Protocol.H2 && tls == null || protocol == Protocol.H2C && tls != null) {
                throw new IllegalArgumentException("protocol " + protocol.id() + (tls == null ? " needs" : " takes no")
                                                   + " tls");
            }
        }
    }

    /**
     * The gateway's own certificate chain and private key, PEM files (the key unencrypted, PKCS#8).
     *
     * @param cert     the certificate chain, the gateway's own first
     * @param key      its private key
     * @param clientCa a PEM file of the CA certificates that a client's certificate must chain to, or {@code null}
     *                 to ask clients for none; a verified certificate can name a trusted peer
     */
    public record Certificate(Path cert, Path key, Path clientCa) {

        /** Without client certificates. */
        public Certificate(Path cert, Path key) {
            this(cert, key, null);
        }
    }

    /**
     * TLS to an upstream: the peer's certificate must chain to a trusted CA and name the server.
     *
     * @param ca         a PEM file of the CA certificates to trust, or {@code null} for the JDK's default ones
     * @param serverName the name sent (SNI) and verified, or {@code null} for each endpoint's own host
     * @param cert       the certificate chain this gateway presents when the upstream asks for one (another
     *                   region's gateway that trusts its peers by certificate), or {@code null} for none
     * @param key        the private key of {@code cert}, or {@code null} with it
     */
    public record Tls(Path ca, String serverName, Path cert, Path key) {

        /** Presenting no certificate of its own. */
        public Tls(Path ca, String serverName) {
            this(ca, serverName, null, null);
        }

        /** Checks that the certificate comes with its key. */
        public Tls {
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException("tls: cert " + cert + ", key " + key + " (expected: both or neither)");
            }
        }
    }

    /** The protocol of upstream connections. */
    public enum Protocol {
        /** Keep-alive HTTP/1.1 connections, one exchange at a time each; over TLS when the upstream has it. */
        HTTP1("http/1.1"),
        /**
         * Cleartext HTTP/2 with prior knowledge, each exchange a stream of a shared connection: what gRPC servers
         * speak, trailers included.
         */
        H2C("h2c"),
        /** HTTP/2 over TLS, agreed by ALPN: as {@link #H2C}, encrypted (another region's gateway across a WAN). */
        H2("h2");

        private final String id;

        Protocol(String id) {
            this.id = id;
        }

        /** The name in {@code gateway.yaml}. */
        public String id() {
            return id;
        }

        /** Whether exchanges are HTTP/2 streams. */
        public boolean http2() {
            return this != HTTP1;
        }
    }

    /**
     * Header names along the call chain (seed 004's {@code n-d-region} can replace {@code x-unitas-region}).
     *
     * @param unit     the unit of the request, set on upstream requests
     * @param region   the serving region, set on upstream requests; its presence marks a pre-routed request
     * @param origin   the region whose gateway first routed the request
     * @param hops     how many unitas gateways the request has passed
     * @param servedBy the serving region, set on responses
     * @param route    {@code home} or {@code failover}, set on responses
     */
    public record Headers(String unit, String region, String origin, String hops, String servedBy, String route) {

        /** The default names, all prefixed {@code x-unitas-}. */
        public static final Headers DEFAULTS = new Headers("x-unitas-unit", "x-unitas-region", "x-unitas-origin",
                                                           "x-unitas-hops", "x-unitas-served-by",
                                                           "x-unitas-route");
    }

    /**
     * Health checks, outlier ejection, timeouts and retries of upstream calls.
     *
     * @param healthCheckPath     the path actively checked on every endpoint, or empty to check none
     * @param healthCheckInterval how often each endpoint is checked
     * @param connectTimeout      how long connecting to an endpoint may take
     * @param responseTimeout     how long the upstreams may take to start answering, retries included (504 after)
     * @param idleTimeout         once an answer streams, the longest pause between two pieces of it (cut after)
     * @param maxAttempts         attempts per request, retries included, for idempotent requests
     * @param ejectionFailureRate the failure rate at which an endpoint is ejected (0 to 1)
     * @param ejectionMinRequests requests seen before an endpoint may be ejected
     * @param ejectionTime        how long an ejected endpoint stays out before a trial request
     */
    public record Resilience(String healthCheckPath, Duration healthCheckInterval, Duration connectTimeout,
                             Duration responseTimeout, Duration idleTimeout, int maxAttempts,
                             double ejectionFailureRate,
                             int ejectionMinRequests, Duration ejectionTime) {

        /** The values used for whatever the file leaves out. */
        public static final Resilience DEFAULTS = new Resilience("", Duration.ofSeconds(2), Duration.ofSeconds(2),
                                                                 Duration.ofSeconds(15), Duration.ofMinutes(5),
                                                                 2, 0.5, 10,
                                                                 Duration.ofSeconds(10));
    }

    /**
     * Limits on client connections, against connection exhaustion and slow clients (nginx's
     * {@code worker_connections}, {@code client_header_timeout} and {@code keepalive_timeout}).
     *
     * @param maxConnections    client connections open at once; one more is accepted and closed at once, and counted
     * @param headerReadTimeout how long a request head may take to arrive whole, from its first byte (from the
     *                          connection's opening for its first request, TLS handshake included)
     * @param idleTimeout       how long a kept-alive connection may wait for its next request
     */
    /**
     * Where the gateway's own {@code /metrics} and the details of {@code /unitas/healthz} (the watch, the regions
     * unreachable from here) are served. With a {@code listen} address of their own, the traffic port keeps only the
     * bare health answer other regions' gateways check ({@code ok}, or 503 without routing state) and proxies
     * {@code /metrics} like any other path; with a {@code tokenFile}, each needs {@code Authorization: Bearer} and the
     * token the file holds, wherever it is served. {@link #OPEN}, neither, serves both to anyone on the traffic
     * port, as gateways did before this setting: the gateway then says so in one line at start.
     *
     * @param listen    a listener of their own (host:port), or {@code null} for the traffic port
     * @param tokenFile a file holding the bearer token they ask for (mode 600), or {@code null} for none
     */
    public record Admin(InetSocketAddress listen, Path tokenFile) {
        /** Served to anyone on the traffic port. */
        public static final Admin OPEN = new Admin(null, null);

        /** Whether both are served to anyone on the traffic port. */
        public boolean open() {
            return listen == null && tokenFile == null;
        }
    }

    /** A copy serving its own endpoints as {@code admin} says; for tests and embedding. */
    public GatewayConfig withAdmin(Admin admin) {
        return new GatewayConfig(region, listen, tls, workers, transport, shortTimeSlices, upstreams, source, headers,
                                 hopLimit, writes, resilience, accessLog, routing, limits, admin);
    }

    public record Limits(int maxConnections, Duration headerReadTimeout, Duration idleTimeout) {

        /** The values used for whatever the file leaves out. */
        public static final Limits DEFAULTS = new Limits(10_000, Duration.ofSeconds(10), Duration.ofSeconds(60));

        /** Refuses limits that would let nothing in. */
        public Limits {
            if (maxConnections < 1) {
                throw new IllegalArgumentException("limits.max_connections: " + maxConnections + " (expected: >= 1)");
            }
            requirePositive(headerReadTimeout, "limits.header_read_timeout");
            requirePositive(idleTimeout, "limits.idle_timeout");
        }

        private static void requirePositive(Duration d, String path) {
            Objects.requireNonNull(d, path);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(path + ": " + d + " (expected: > 0)");
            }
        }
    }
}
