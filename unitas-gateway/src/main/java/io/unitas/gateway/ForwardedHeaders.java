package io.unitas.gateway;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Predicate;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;

/**
 * The headers of a forwarded request and of its relayed answer: what must not cross a proxy is removed
 * (connection-scoped headers and those a {@code Connection} header names, RFC 9110 section 7.6.1), then unitas's
 * stamps are set: on the request its target region, hop count, unit and origin; on the answer the region that served
 * it and the route. A client's {@code Connection} header cannot remove the routing key the request was routed by,
 * nor a stamp: the names {@code keptUpstream} accepts stay.
 */
final class ForwardedHeaders {

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
    private static final int CRLF = '\r' << 8 | '\n';

    private final String self;
    private final AsciiString unitHeader;
    private final AsciiString regionHeader;
    private final AsciiString originHeader;
    private final AsciiString hopsHeader;
    /** Also on every answer of the gateway's own. */
    final AsciiString servedByHeader;
    private final AsciiString routeHeader;
    /** The stamps every answer gets: the upstream's own headers of these names are not relayed. */
    final AsciiString[] answerStamps;
    /** The request headers a client's {@code Connection} header cannot remove: routing keys and stamps. */
    private final Predicate<CharSequence> keptUpstream;

    ForwardedHeaders(GatewayConfig.Headers names, String self, Predicate<CharSequence> keptUpstream) {
        this.self = self;
        this.unitHeader = AsciiString.cached(names.unit());
        this.regionHeader = AsciiString.cached(names.region());
        this.originHeader = AsciiString.cached(names.origin());
        this.hopsHeader = AsciiString.cached(names.hops());
        this.servedByHeader = AsciiString.cached(names.servedBy());
        this.routeHeader = AsciiString.cached(names.route());
        this.answerStamps = new AsciiString[] {servedByHeader, routeHeader};
        this.keptUpstream = keptUpstream;
    }

    /**
     * Makes {@code req}'s headers those it goes upstream with, decided by {@code d}, and returns the head to send: an
     * HTTP/1.1 one whatever the client spoke. A request that came over HTTP/2 ({@code fromHttp2}) loses the
     * conversion's own headers and, without a length, is sent chunked: its body's length is known only at its end.
     */
    HttpRequest toUpstream(HttpRequest req, Decision d, boolean fromHttp2) {
        HttpHeaders h = req.headers();
        boolean trailers = h.containsValue(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS, true);
        stripHopByHop(h, keptUpstream);
        if (trailers) { // the one TE that crosses a proxy (RFC 9113 section 8.2.2): gRPC servers look for it
            h.set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
        }
        if (fromHttp2) {
            stripHttp2Extensions(h);
            if (!HttpUtil.isContentLengthSet(req) && !HttpUtil.isTransferEncodingChunked(req)) {
                HttpUtil.setTransferEncodingChunked(req, true);
            }
        }
        h.set(regionHeader, d.target().id());
        h.set(hopsHeader, hops(d.hops() + 1));
        if (d.unit() != null) {
            h.set(unitHeader, d.unit());
        }
        if (!h.contains(originHeader)) {
            h.set(originHeader, self);
        }
        return req.protocolVersion() == HttpVersion.HTTP_1_1
               ? req : new DefaultHttpRequest(HttpVersion.HTTP_1_1, req.method(), req.uri(), h);
    }

    /**
     * Makes an answer's headers those it reaches the client with: without what must not cross a proxy (nor, from an
     * HTTP/2 upstream, the conversion's own headers), stamped with the region that served it and the route.
     */
    void toClient(HttpHeaders h, Decision d, boolean fromHttp2) {
        stripHopByHop(h);
        if (fromHttp2) {
            stripHttp2Extensions(h);
        }
        h.set(servedByHeader, d.target().id());
        h.set(routeHeader, d.route());
    }

    /**
     * Ends an answer's head taken as bytes ({@link RawAnswers}, which left out its hop-by-hop lines and any
     * {@link #answerStamps}): appends the stamps and the blank line.
     */
    void toClient(ByteBuf head, Decision d) {
        stamp(head, servedByHeader, d.target().id());
        stamp(head, routeHeader, d.route());
        head.writeShort(CRLF);
    }

    /** Appends the header line {@code name: value} to a head being written as bytes. */
    private static void stamp(ByteBuf head, AsciiString name, CharSequence value) {
        ByteBufUtil.copy(name, head);
        head.writeShort(':' << 8 | ' ');
        head.writeCharSequence(value, StandardCharsets.US_ASCII);
        head.writeShort(CRLF);
    }

    /** {@link #stripHopByHop(HttpHeaders, Predicate)} keeping nothing: for answers, which carry no routing key. */
    static void stripHopByHop(HttpHeaders h) {
        stripHopByHop(h, name -> false);
    }

    /**
     * Removes what must not cross this proxy: connection-scoped headers and those the {@code Connection} header
     * names. One pass over the headers finds them: most messages carry none but {@code Connection} itself, and a
     * removal by name costs a case-insensitive hash. Nothing is allocated unless {@code Connection} names a header
     * that is neither connection-scoped nor {@code close}. A name {@code kept} accepts stays whatever
     * {@code Connection} says: a client must not remove the routing key the request was routed by, or a stamp, on
     * its way upstream.
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
