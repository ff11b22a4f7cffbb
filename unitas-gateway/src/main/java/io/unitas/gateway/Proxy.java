package io.unitas.gateway;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.unitas.control.client.state.RoutingState;

/**
 * What every {@link ProxyHandler} of one gateway shares: the dispatcher and the state it reads, the upstreams and
 * their connections, metrics, the forwarded headers' rules and the gateway's own two endpoints.
 */
final class Proxy {

    /** The gateway's own health path; other regions' gateways are checked on it. */
    static final String HEALTH_PATH = AdminEndpoints.HEALTH_PATH;
    static final String METRICS_PATH = AdminEndpoints.METRICS_PATH;

    final String self;
    final Dispatcher dispatcher;
    /** Whose requests may carry stamps; see {@link TrustedPeers}. */
    final TrustedPeers trustedPeers;
    final Supplier<RoutingState> state;
    final Upstreams upstreams;
    final Connections connections;
    final GatewayMetrics metrics;
    /** What the forwarded requests and their answers lose and gain in their headers. */
    final ForwardedHeaders headers;
    final int maxAttempts;
    final long responseTimeoutNanos;
    final long idleTimeoutNanos;
    /** Every deadline of connections and exchanges, on the gateway's ticker. */
    final Timeouts timeouts;
    final ClientLimits limits;
    /** Exchanges in flight, so that a graceful stop knows when it may close connections. */
    final AtomicInteger inFlight = new AtomicInteger();
    /** The gateway's own endpoints, as the traffic port and the admin listener answer them. */
    final AdminEndpoints admin;

    Proxy(GatewayConfig config, Supplier<RoutingState> state, Upstreams upstreams, Connections connections,
          GatewayMetrics metrics, Clock clock, Timeouts timeouts, ClientLimits limits) {
        this.self = config.region().id();
        this.dispatcher = new Dispatcher(config, clock);
        this.trustedPeers = TrustedPeers.of(config.routing().trustedPeers());
        this.state = state;
        this.upstreams = upstreams;
        this.connections = connections;
        this.metrics = metrics;
        this.timeouts = timeouts;
        this.limits = limits;
        this.headers = new ForwardedHeaders(config.headers(), self,
                                            name -> dispatcher.keepsUpstream(state.get(), name));
        this.maxAttempts = Math.max(1, config.resilience().maxAttempts());
        this.responseTimeoutNanos = config.resilience().responseTimeout().toNanos();
        this.idleTimeoutNanos = config.resilience().idleTimeout().toNanos();
        this.admin = new AdminEndpoints(config.admin(), metrics, state, headers.servedByHeader, self);
    }

    /** The handler of an HTTP/1.x connection or of one HTTP/2 stream, whose connection {@code guard} watches. */
    ProxyHandler newHandler(boolean http2Stream, ConnectionGuard guard) {
        return new ProxyHandler(this, http2Stream, guard);
    }

    /** The guard of a new client connection. */
    ConnectionGuard newGuard() {
        return new ConnectionGuard(timeouts, limits);
    }

    /** The answer of the gateway's own endpoint at {@code path}, or {@code null} when the path is proxied. */
    FullHttpResponse local(String path, HttpHeaders headers) {
        return admin.onTraffic(path, headers);
    }

    /** An answer of the gateway's own, stamped {@code servedByHeader: region} like every answer it gives. */
    static FullHttpResponse whole(HttpResponseStatus status, String contentType, byte[] body,
                                  CharSequence servedByHeader, String region) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType).setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
           .set(servedByHeader, region);
        return res;
    }

    /** See {@link ForwardedHeaders#stripHopByHop(HttpHeaders)}; the proxy's header rules are tested by this name. */
    static void stripHopByHop(HttpHeaders h) {
        ForwardedHeaders.stripHopByHop(h);
    }

    /** See {@link ForwardedHeaders#stripHttp2Extensions}. */
    static void stripHttp2Extensions(HttpHeaders h) {
        ForwardedHeaders.stripHttp2Extensions(h);
    }

    /** See {@link ForwardedHeaders#hops}. */
    static CharSequence hops(int hops) {
        return ForwardedHeaders.hops(hops);
    }
}
