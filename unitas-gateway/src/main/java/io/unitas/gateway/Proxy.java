package io.unitas.gateway;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;
import io.unitas.control.client.state.RoutingState;

/**
 * What every {@link ProxyHandler} of one gateway shares: the dispatcher and the state it reads, the upstreams and
 * their connections, metrics, header names and the gateway's own two endpoints.
 */
final class Proxy {

    /** The gateway's own health path; other regions' gateways are checked on it. */
    static final String HEALTH_PATH = "/unitas/healthz";
    static final String METRICS_PATH = "/metrics";

    /** Connection-scoped headers (RFC 9110 section 7.6.1), which a proxy must not pass on. */
    private static final AsciiString[] HOP_BY_HOP = {
            HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.TE, HttpHeaderNames.TRAILER, HttpHeaderNames.UPGRADE, AsciiString.cached("http2-settings"),
            HttpHeaderNames.EXPECT };

    final String self;
    final Dispatcher dispatcher;
    /** Whose requests may carry stamps; see {@link TrustedPeers}. */
    final TrustedPeers trustedPeers;
    final Supplier<RoutingState> state;
    final Upstreams upstreams;
    final Connections connections;
    final GatewayMetrics metrics;
    final AsciiString unitHeader;
    final AsciiString regionHeader;
    final AsciiString originHeader;
    final AsciiString hopsHeader;
    final AsciiString servedByHeader;
    final AsciiString routeHeader;
    final int maxAttempts;
    final long responseTimeoutNanos;
    final long idleTimeoutNanos;
    /** Every deadline of connections and exchanges, on the gateway's ticker. */
    final Timeouts timeouts;
    final ClientLimits limits;
    /** Exchanges in flight, so that a graceful stop knows when it may close connections. */
    final AtomicInteger inFlight = new AtomicInteger();

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
        GatewayConfig.Headers names = config.headers();
        this.unitHeader = AsciiString.cached(names.unit());
        this.regionHeader = AsciiString.cached(names.region());
        this.originHeader = AsciiString.cached(names.origin());
        this.hopsHeader = AsciiString.cached(names.hops());
        this.servedByHeader = AsciiString.cached(names.servedBy());
        this.routeHeader = AsciiString.cached(names.route());
        this.maxAttempts = Math.max(1, config.resilience().maxAttempts());
        this.responseTimeoutNanos = config.resilience().responseTimeout().toNanos();
        this.idleTimeoutNanos = config.resilience().idleTimeout().toNanos();
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
    FullHttpResponse local(String path) {
        if (path.equals(METRICS_PATH)) {
            return text(HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
        }
        if (path.equals(HEALTH_PATH)) {
            return state.get() == null
                   ? text(HttpResponseStatus.SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", "no routing state")
                   : text(HttpResponseStatus.OK, "text/plain; charset=utf-8", "ok\n" + metrics.watchHealth());
        }
        return null;
    }

    private FullHttpResponse text(HttpResponseStatus status, String type, String body) {
        return whole(status, type, body.getBytes(StandardCharsets.UTF_8), servedByHeader, self);
    }

    /** An answer of the gateway's own, stamped {@code servedByHeader: region} like every answer it gives. */
    static FullHttpResponse whole(HttpResponseStatus status, String contentType, byte[] body,
                                  CharSequence servedByHeader, String region) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType).setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
           .set(servedByHeader, region);
        return res;
    }

    /**
     * Removes what must not cross this proxy: connection-scoped headers and those the {@code Connection} header
     * names. One pass over the headers finds them: most messages carry none but {@code Connection} itself, and a
     * removal by name costs a case-insensitive hash.
     */
    static void stripHopByHop(HttpHeaders h) {
        List<CharSequence> found = null;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            if (!isHopByHop(name)) {
                continue;
            }
            if (found == null) {
                found = new ArrayList<>(2);
            }
            found.add(name);
            if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.CONNECTION)) {
                for (String token : e.getValue().toString().split(",")) {
                    found.add(token.trim());
                }
            }
        }
        if (found != null) {
            found.forEach(h::remove);
        }
    }

    private static boolean isHopByHop(CharSequence name) {
        for (AsciiString hop : HOP_BY_HOP) {
            if (hop.length() == name.length() && hop.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** The HTTP/2 conversion's own headers ({@code x-http2-stream-id} and the like), meaningless upstream. */
    static void stripHttp2Extensions(HttpHeaders h) {
        for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
            h.remove(name.text());
        }
    }
}
