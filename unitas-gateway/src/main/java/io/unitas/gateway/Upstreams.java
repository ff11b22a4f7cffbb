package io.unitas.gateway;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AsciiString;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.Future;
import io.unitas.core.Region;
import io.unitas.gateway.GatewayConfig.Resilience;

/**
 * Every region's upstream endpoints: per region a default pool and one per gray version. Each endpoint is actively
 * health-checked and ejected for a while when too many of its exchanges fail; a pool picks round-robin among the
 * endpoints that are in. Built once from the configuration and owned by the gateway.
 */
final class Upstreams implements AutoCloseable {

    /** The header that makes a non-idempotent request safe to send twice. */
    static final AsciiString IDEMPOTENCY_KEY = AsciiString.cached("idempotency-key");

    /** Failures are counted over windows this long. */
    private static final long OUTLIER_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Map<Region, Pool> defaults = new HashMap<>();
    private final Map<Region, Map<String, Pool>> versions = new HashMap<>();
    private final Map<Endpoint, String> checked = new HashMap<>();
    private final List<ScheduledFuture<?>> checks = new ArrayList<>();
    private final Resilience resilience;
    /** Nanoseconds, for ejection windows and times. */
    private final LongSupplier ticker;

    Upstreams(Map<Region, GatewayConfig.Upstream> config, Resilience resilience, LongSupplier ticker) {
        this.resilience = resilience;
        this.ticker = ticker;
        config.forEach((region, upstream) -> {
            String check = upstream.healthCheck() != null ? upstream.healthCheck() : resilience.healthCheckPath();
            UpstreamTls tls = upstream.tls() == null ? null : UpstreamTls.of(upstream.tls(), upstream.protocol());
            defaults.put(region, pool(upstream.endpoints(), upstream.protocol(), tls, check));
            Map<String, Pool> byVersion = new HashMap<>();
            upstream.versions().forEach((version, eps) -> byVersion.put(version, pool(eps, upstream.protocol(), tls,
                                                                                       check)));
            versions.put(region, Map.copyOf(byVersion));
        });
    }

    private Pool pool(List<String> endpoints, GatewayConfig.Protocol protocol, UpstreamTls tls, String healthCheck) {
        Endpoint[] eps = endpoints.stream().map(ep -> new Endpoint(ep, protocol, tls, resilience, ticker))
                                  .toArray(Endpoint[]::new);
        if (!healthCheck.isEmpty()) {
            for (Endpoint ep : eps) {
                checked.put(ep, healthCheck);
            }
        }
        return new Pool(eps, ticker);
    }

    /** Every endpoint of each region, its gray versions' included. */
    Map<Region, List<Endpoint>> endpointsByRegion() {
        Map<Region, List<Endpoint>> all = new java.util.LinkedHashMap<>();
        defaults.forEach((region, pool) -> {
            List<Endpoint> eps = new ArrayList<>(List.of(pool.endpoints));
            versions.getOrDefault(region, Map.of()).values().forEach(v -> eps.addAll(List.of(v.endpoints)));
            all.put(region, List.copyOf(eps));
        });
        return all;
    }

    /** The pool of {@code version} in {@code region}, or the region's default pool; {@code null} when none. */
    Pool pool(Region region, String version) {
        if (version != null) {
            Map<String, Pool> byVersion = versions.get(region);
            Pool p = byVersion == null ? null : byVersion.get(version);
            if (p != null) {
                return p;
            }
        }
        return defaults.get(region);
    }

    /**
     * Starts checking every endpoint that has a health check, and waits for the first round, so that no request
     * goes to an endpoint that was failing before the gateway started.
     */
    void startHealthChecks(Connections connections, EventLoopGroup group) {
        Duration timeout = resilience.connectTimeout().plus(resilience.healthCheckInterval());
        long every = resilience.healthCheckInterval().toMillis();
        Map<Endpoint, Future<Boolean>> first = new HashMap<>();
        checked.forEach((endpoint, check) -> {
            EventLoop loop = (EventLoop) group.next();
            first.put(endpoint, connections.probe(loop, endpoint, check, timeout));
            checks.add(loop.scheduleWithFixedDelay(
                    () -> connections.probe(loop, endpoint, check, timeout)
                                     .addListener(f -> endpoint.checked(passed(f))),
                    every, every, TimeUnit.MILLISECONDS));
        });
        first.forEach((endpoint, f) -> endpoint.checked(passed(f.awaitUninterruptibly())));
    }

    private static boolean passed(Future<?> check) {
        return check.isSuccess() && Boolean.TRUE.equals(check.getNow());
    }

    /**
     * Whether a request may be sent again after a failure: an idempotent method (RFC 9110 section 9.2.2), or any
     * method with an {@code Idempotency-Key}. A bare POST or PATCH never is.
     */
    static boolean isRetryable(HttpRequest request) {
        HttpMethod m = request.method();
        return m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS || m == HttpMethod.TRACE
               || m == HttpMethod.PUT || m == HttpMethod.DELETE || request.headers().contains(IDEMPOTENCY_KEY);
    }

    @Override
    public void close() {
        checks.forEach(c -> c.cancel(false));
    }

    /** The endpoints serving one region (or one gray version of it). */
    static final class Pool {

        private final Endpoint[] endpoints;
        private final AtomicInteger next = new AtomicInteger();

        private final LongSupplier ticker;

        Pool(Endpoint[] endpoints, LongSupplier ticker) {
            this.endpoints = endpoints;
            this.ticker = ticker;
        }

        /**
         * The next endpoint, round-robin, that passes its checks, is not ejected, and is not {@code avoid} (the one
         * that just failed); failing that, one that is in, even {@code avoid}; and when none is in, any of them,
         * since trying beats refusing when every check is failing at once (Envoy's panic mode).
         */
        Endpoint pick(Endpoint avoid) {
            long now = ticker.getAsLong();
            int n = endpoints.length;
            int start = next.getAndIncrement() & Integer.MAX_VALUE;
            Endpoint fallback = null;
            for (int i = 0; i < n; i++) {
                Endpoint e = endpoints[(start + i) % n];
                if (e.isIn(now)) {
                    if (e != avoid) {
                        return e;
                    }
                    fallback = e;
                }
            }
            if (fallback != null) {
                return fallback;
            }
            Endpoint any = endpoints[start % n];
            return any == avoid && n > 1 ? endpoints[(start + 1) % n] : any;
        }
    }

    /** One upstream endpoint, with what its health checks and its recent exchanges say of it. */
    static final class Endpoint {

        private final String host;
        private final int port;
        private final String authority;
        /** The address when the host is an IP address, else {@code null}. */
        private final InetSocketAddress literal;
        private final GatewayConfig.Protocol protocol;
        /** {@code null} for cleartext. */
        private final UpstreamTls tls;
        private final Resilience resilience;
        private final LongSupplier ticker;
        private volatile boolean passing = true;
        private volatile long ejectedUntil; // in from the start
        private long windowStart;
        private int requests;
        private int failures;
        /** When a connection to it was last made or refused (ticker), and which; see {@link Reachability}. */
        private volatile long connectAt;
        private volatile int connect = Reachability.UNTRIED;

        Endpoint(String hostPort, GatewayConfig.Protocol protocol, UpstreamTls tls, Resilience resilience,
                 LongSupplier ticker) {
            int colon = hostPort.lastIndexOf(':');
            String h = hostPort.substring(0, colon);
            this.host = h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
            this.port = Integer.parseInt(hostPort.substring(colon + 1));
            this.authority = hostPort;
            this.literal = NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)
                           ? new InetSocketAddress(NetUtil.createInetAddressFromIpAddressString(host), port) : null;
            this.protocol = protocol;
            this.tls = tls;
            this.resilience = resilience;
            this.ticker = ticker;
            this.ejectedUntil = ticker.getAsLong();
            this.windowStart = ejectedUntil;
        }

        String authority() {
            return authority;
        }

        boolean http2() {
            return protocol.http2();
        }

        /** The TLS handshake a new connection to this endpoint starts with, or {@code null} for cleartext. */
        SslHandler newTlsHandler(ByteBufAllocator alloc) {
            return tls == null ? null : tls.newHandler(alloc, host, port);
        }

        /**
         * An IP address as it is; a name unresolved, for the connection's resolver to look up on every connect, so
         * that it follows its DNS records.
         */
        InetSocketAddress address() {
            return literal != null ? literal : InetSocketAddress.createUnresolved(host, port);
        }

        boolean isIn(long now) {
            return passing && now - ejectedUntil >= 0;
        }

        void checked(boolean passed) {
            passing = passed;
        }

        /**
         * A connection to it was made (or an HTTP/2 stream opened on one). Written at most every 100 ms while it
         * keeps succeeding, so that a busy endpoint's requests do not all write the same two fields.
         */
        void connected() {
            long now = ticker.getAsLong();
            if (connect != Reachability.CONNECTED || now - connectAt > Reachability.REFRESH_NANOS) {
                connectAt = now;
                connect = Reachability.CONNECTED;
            }
        }

        /** A connection to it was refused or timed out: nothing answered at its address. */
        void refused() {
            connectAt = ticker.getAsLong();
            connect = Reachability.REFUSED;
        }

        /** {@link Reachability#CONNECTED}, {@link Reachability#REFUSED} or {@link Reachability#UNTRIED}. */
        int lastConnect() {
            return connect;
        }

        /** When {@link #lastConnect()} happened, on the ticker. */
        long lastConnectAt() {
            return connectAt;
        }

        /**
         * Counts one exchange; when failures reach the configured rate over enough requests in the current window,
         * the endpoint is ejected for the ejection time and then tried afresh.
         */
        synchronized void report(boolean ok) {
            long now = ticker.getAsLong();
            if (now - windowStart > OUTLIER_WINDOW_NANOS) {
                windowStart = now;
                requests = 0;
                failures = 0;
            }
            requests++;
            if (!ok) {
                failures++;
            }
            if (requests >= resilience.ejectionMinRequests()
                && failures >= resilience.ejectionFailureRate() * requests) {
                ejectedUntil = now + resilience.ejectionTime().toNanos();
                windowStart = now;
                requests = 0;
                failures = 0;
            }
        }

        @Override
        public String toString() {
            return authority;
        }
    }
}
