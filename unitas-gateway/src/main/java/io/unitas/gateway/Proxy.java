package io.unitas.gateway;

import java.time.Clock;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
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
    static final String HEALTH_PATH = AdminEndpoints.HEALTH_PATH;
    static final String METRICS_PATH = AdminEndpoints.METRICS_PATH;

    /** Connection-scoped headers (RFC 9110 section 7.6.1), which a proxy must not pass on. */
    private static final AsciiString[] HOP_BY_HOP = {
            HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.TE, HttpHeaderNames.TRAILER, HttpHeaderNames.UPGRADE, AsciiString.cached("http2-settings"),
            HttpHeaderNames.EXPECT };
    private static final AsciiString[] HOPS = new AsciiString[32];

    static {
        for (int i = 0; i < HOPS.length; i++) {
            HOPS[i] = AsciiString.cached(Integer.toString(i));
        }
    }

    /** A bit for each length of a name in {@link #HOP_BY_HOP}. */
    private static final int HOP_BY_HOP_LENGTHS = Arrays.stream(HOP_BY_HOP).mapToInt(h -> 1 << h.length())
                                                        .reduce(0, (a, b) -> a | b);
    /** {@code Connection}'s index in {@link #HOP_BY_HOP}. */
    private static final int CONNECTION = 0;
    /** The HTTP/2 conversion's own header names, listed once ({@code values()} copies its array at each call). */
    private static final AsciiString[] HTTP2_EXTENSIONS =
            Arrays.stream(HttpConversionUtil.ExtensionHeaderNames.values())
                  .map(HttpConversionUtil.ExtensionHeaderNames::text).toArray(AsciiString[]::new);

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
    /** The stamps every answer gets: the upstream's own headers of these names are not relayed. */
    final AsciiString[] answerStamps;
    final int maxAttempts;
    final long responseTimeoutNanos;
    final long idleTimeoutNanos;
    /** Every deadline of connections and exchanges, on the gateway's ticker. */
    final Timeouts timeouts;
    final ClientLimits limits;
    /** Exchanges in flight, so that a graceful stop knows when it may close connections. */
    final AtomicInteger inFlight = new AtomicInteger();
    /** The request headers a client's {@code Connection} header cannot remove: routing keys and stamps. */
    final Predicate<CharSequence> keptUpstream;
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
        GatewayConfig.Headers names = config.headers();
        this.unitHeader = AsciiString.cached(names.unit());
        this.regionHeader = AsciiString.cached(names.region());
        this.originHeader = AsciiString.cached(names.origin());
        this.hopsHeader = AsciiString.cached(names.hops());
        this.servedByHeader = AsciiString.cached(names.servedBy());
        this.routeHeader = AsciiString.cached(names.route());
        this.answerStamps = new AsciiString[] {servedByHeader, routeHeader};
        this.maxAttempts = Math.max(1, config.resilience().maxAttempts());
        this.responseTimeoutNanos = config.resilience().responseTimeout().toNanos();
        this.idleTimeoutNanos = config.resilience().idleTimeout().toNanos();
        this.keptUpstream = name -> dispatcher.keepsUpstream(state.get(), name);
        this.admin = new AdminEndpoints(config.admin(), metrics, state, servedByHeader, self);
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

    /** {@link #stripHopByHop(HttpHeaders, Predicate)} keeping nothing: for answers, which carry no routing key. */
    static void stripHopByHop(HttpHeaders h) {
        stripHopByHop(h, name -> false);
    }

    /**
     * Removes what must not cross this proxy: connection-scoped headers and those the {@code Connection} header
     * names. One pass over the headers finds them: most messages carry none but {@code Connection} itself, and a
     * removal by name costs a case-insensitive hash. Nothing is allocated unless {@code Connection} names a header
     * that is neither connection-scoped nor {@code close}. A name {@code kept} accepts stays whatever {@code Connection}
     * says: a client must not remove the routing key the request was routed by, or a stamp, on its way upstream.
     */
    static void stripHopByHop(HttpHeaders h, Predicate<CharSequence> kept) {
        int found = 0; // a bit per HOP_BY_HOP entry present
        CharSequence connection = null;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            int hop = hopByHop(e.getKey(), 0, e.getKey().length());
            if (hop < 0) {
                continue;
            }
            found |= 1 << hop;
            if (hop == CONNECTION) {
                connection = connection == null ? e.getValue() : connection + "," + e.getValue();
            }
        }
        for (int i = 0; found != 0; i++, found >>>= 1) {
            if ((found & 1) != 0) {
                h.remove(HOP_BY_HOP[i]);
            }
        }
        if (connection != null) {
            removeNamedIn(h, connection, kept);
        }
    }

    /** Removes each header a {@code Connection} value names ({@code close, x-foo}: RFC 9110 section 7.6.1). */
    private static void removeNamedIn(HttpHeaders h, CharSequence connection, Predicate<CharSequence> kept) {
        int n = connection.length();
        for (int start = 0; start < n; ) {
            int end = start;
            while (end < n && connection.charAt(end) != ',') {
                end++;
            }
            int next = end + 1;
            while (start < end && isWhitespace(connection.charAt(start))) {
                start++;
            }
            while (end > start && isWhitespace(connection.charAt(end - 1))) {
                end--;
            }
            if (end > start && hopByHop(connection, start, end) < 0) { // those are gone already
                CharSequence name = connection.subSequence(start, end);
                if (kept.test(name)) {
                    start = next;
                    continue;
                }
                if (end - start == HttpHeaderValues.CLOSE.length()
                    && AsciiString.regionMatches(connection, true, start, HttpHeaderValues.CLOSE, 0, end - start)) {
                    h.remove(HttpHeaderValues.CLOSE);
                } else {
                    h.remove(name.toString());
                }
            }
            start = next;
        }
    }

    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t';
    }

    /** The index in {@link #HOP_BY_HOP} of the name {@code s[start, end)}, or -1 when it is none of them. */
    private static int hopByHop(CharSequence s, int start, int end) {
        int length = end - start;
        if (length >= Integer.SIZE || (HOP_BY_HOP_LENGTHS & 1 << length) == 0) { // most names end here
            return -1;
        }
        char first = (char) (s.charAt(start) | 0x20); // lower case, for a letter
        for (int i = 0; i < HOP_BY_HOP.length; i++) {
            AsciiString hop = HOP_BY_HOP[i];
            if (hop.length() == length && hop.charAt(0) == first
                && AsciiString.regionMatches(s, true, start, hop, 0, length)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The value of the hops header for {@code hops}: a constant up to {@link #HOPS}'s length (a chain of gateways is
     * short; the hop limit refuses long ones), so that stamping a request formats no number.
     */
    static CharSequence hops(int hops) {
        return hops >= 0 && hops < HOPS.length ? HOPS[hops] : Integer.toString(hops);
    }

    /** The HTTP/2 conversion's own headers ({@code x-http2-stream-id} and the like), meaningless upstream. */
    static void stripHttp2Extensions(HttpHeaders h) {
        for (AsciiString name : HTTP2_EXTENSIONS) {
            h.remove(name);
        }
    }
}
