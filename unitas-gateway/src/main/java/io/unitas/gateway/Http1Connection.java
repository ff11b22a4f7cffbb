package io.unitas.gateway;

import java.util.ArrayDeque;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

import io.unitas.core.ProblemDetail;

/**
 * What only an HTTP/1.x client connection has, around the exchanges its {@link ProxyHandler} runs one after another:
 * requests pipelined behind the one being answered are parked and taken up in order, and only while the client reads
 * the answers before them, so that a client that pipelines and never reads cannot make the gateway buffer answers for
 * it; whether the connection stays open after an answer (RFC 9112 section 9.3) and how an answer is framed for it;
 * the h2c upgrade, which only the first request may ask for; and answers relayed as the bytes they came in, past the
 * codec ({@link RawAnswers}). An HTTP/2 stream has none of it: HTTP/2 frames and bounds its streams itself.
 */
final class Http1Connection {

    private final ChannelHandlerContext ctx;
    /** Pipelined messages that arrived while the exchange before them was still answering. */
    private final ArrayDeque<Object> parked = new ArrayDeque<>();
    /** Whether the connection stays open after the answer being given. */
    private boolean keepAlive = true;
    /** HTTP/1.0 knows neither chunked bodies nor keep-alive by default. */
    private boolean http10;
    /** Whether the first request has been taken, the only one that may ask for h2c. */
    private boolean firstRequestTaken;
    /** The codec's context, past which answers taken as bytes are written; {@code null} until looked up. */
    private ChannelHandlerContext codec;

    /** The connection whose handler's context is {@code ctx}. */
    Http1Connection(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /**
     * Whether a new request may be taken up: only while the client reads its answers, else a client that pipelines
     * requests and reads nothing would have every answer buffered for it.
     */
    boolean takesRequests() {
        return ctx.channel().isWritable();
    }

    /**
     * Whether what the client sends next may be taken up beside {@code inFlight} (the exchange in flight, or
     * {@code null}): the rest of its request body, or with none in flight a request while the client reads.
     */
    private boolean mayTakeUp(Exchange inFlight) {
        return inFlight != null ? !inFlight.requestEnded() : takesRequests();
    }

    /** Parks {@code msg} when it may not be taken up yet, behind what is parked already; says whether it did. */
    boolean parks(Object msg, Exchange inFlight) {
        if (parked.isEmpty() && mayTakeUp(inFlight)) {
            return false;
        }
        parked.add(msg);
        return true;
    }

    /** The next parked message, when it may be taken up now; else {@code null}. */
    Object unpark(Exchange inFlight) {
        return !parked.isEmpty() && mayTakeUp(inFlight) ? parked.poll() : null;
    }

    boolean hasParked() {
        return !parked.isEmpty();
    }

    /** The client went away: what it pipelined is dropped. */
    void dropParked() {
        Object msg;
        while ((msg = parked.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }

    /**
     * Takes up the connection's side of a request: the h2c offer ends with the first request, the request says
     * whether the connection stays open, {@code Expect: 100-continue} is answered. Returns the problem to answer
     * instead of forwarding when the request expects something else, else {@code null}.
     */
    ProblemDetail begin(HttpRequest req) {
        if (!firstRequestTaken) { // clients ask for h2c on their first request only
            firstRequestTaken = true;
            if (ctx.pipeline().get(HttpServerUpgradeHandler.class) != null) {
                ctx.pipeline().remove(HttpServerUpgradeHandler.class);
            }
        }
        keepAlive = HttpUtil.isKeepAlive(req);
        http10 = req.protocolVersion() == HttpVersion.HTTP_1_0;
        if (HttpUtil.is100ContinueExpected(req)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                                                          Unpooled.EMPTY_BUFFER), ctx.voidPromise());
        } else if (req.headers().contains(HttpHeaderNames.EXPECT)) { // RFC 9110 defines only 100-continue
            return ProblemDetail.of(417, "expectation-failed",
                                    "expect: '" + req.headers().get(HttpHeaderNames.EXPECT) + "' is not supported");
        }
        return null;
    }

    /** Whether the connection stays open after the answer being given. */
    boolean keepsAlive() {
        return keepAlive;
    }

    /**
     * Whether the upstream's answer to {@code req} may be relayed as the bytes it came in ({@link RawAnswers}): to
     * a client that keeps its HTTP/1.1 connection, past the codec, whose record of requests is then kept in step
     * ({@link ServerCodecs}). Not to {@code HEAD} or {@code CONNECT}, whose answers the codec frames its own way, nor
     * to a request with a {@code Transfer-Encoding}, after whose answer the codec may close the connection.
     */
    boolean takesBytes(HttpRequest req) {
        if (http10 || !keepAlive || !ServerCodecs.available()) {
            return false;
        }
        HttpMethod method = req.method();
        if (method.equals(HttpMethod.HEAD) || method.equals(HttpMethod.CONNECT)
            || req.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return false;
        }
        if (codec == null) {
            codec = ctx.pipeline().context(HttpServerCodec.class);
        }
        return codec != null;
    }

    /** An answer is written as bytes: the codec's record of its request is taken, as encoding it would. */
    void answeredAsBytes() {
        ServerCodecs.answered((HttpServerCodec) codec.handler());
    }

    /** Writes a piece of an answer taken as bytes past the codec, to go out at the next flush. */
    void writeBytes(ByteBuf bytes) {
        codec.write(bytes, codec.voidPromise());
    }

    /** Writes and flushes the end of an answer taken as bytes; the connection stays open. */
    void writeLastBytes(ByteBuf bytes) {
        codec.writeAndFlush(bytes, codec.voidPromise());
    }

    /**
     * Frames an upstream answer to a request of {@code method} for the client: a body of unknown length goes chunked
     * (so the connection stays reusable), or to an HTTP/1.0 client, unchunked until the connection closes.
     */
    void frame(HttpResponse res, int code, HttpMethod method) {
        HttpHeaders h = res.headers();
        boolean unframed = !HttpUtil.isContentLengthSet(res) && code != 204 && code != 304
                           && method != HttpMethod.HEAD;
        if (http10 && (unframed || HttpUtil.isTransferEncodingChunked(res))) {
            h.remove(HttpHeaderNames.TRANSFER_ENCODING);
            keepAlive = false;
        } else if (unframed && !HttpUtil.isTransferEncodingChunked(res)) {
            HttpUtil.setTransferEncodingChunked(res, true);
        }
        if (!keepAlive) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }
}
