package io.unitas.gateway;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
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
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;

import io.unitas.core.ProblemDetail;

/**
 * The per-request path on one downstream HTTP/1.1 connection or HTTP/2 stream: the {@link Dispatcher} decides, then
 * the request is relayed to an upstream connection on the same event loop and the response back, both bodies
 * streamed with backpressure. A failed attempt is retried on another endpoint only when the request may run twice
 * and nothing of the response has been sent yet. An exchange moves through the {@link Phase phases}; its deadline is
 * an entry of the gateway's {@link Timeouts}, on the gateway's ticker. Over HTTP/1.1 the next request is not taken up
 * while the client is not reading the answers before it, so a client that pipelines and never reads cannot make the
 * gateway buffer answers for it.
 */
final class ProxyHandler extends ChannelInboundHandlerAdapter {

    /** A retryable request's body is kept for a replay up to this size; a longer one streams on, unretried. */
    static final int MAX_REPLAY_BYTES = 64 * 1024;
    private static final AsciiString GRPC = AsciiString.cached("application/grpc");
    private static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
    /** A gRPC server's "not now" (overloaded, shutting down), in a headers-only answer: a gateway failure. */
    private static final String GRPC_UNAVAILABLE = "14";

    private final Proxy proxy;
    /** An HTTP/2 stream carries one exchange; an HTTP/1.1 connection one after another. */
    private final boolean http2Stream;
    private ChannelHandlerContext ctx;
    private Exchange exchange;
    /** The deadline of the exchange in flight: one entry serves every exchange of a keep-alive connection. */
    private Timeouts.Entry timer;
    /** The connection's guard, told when a request is in progress so that it does not time the connection out. */
    private final ConnectionGuard guard;
    /** Whether the guard has been told of a request whose answer is not done yet. */
    private boolean requestOpen;
    /** HTTP/1.x: whether the client's connection stays open after the answer being given (RFC 9112 section 9.3). */
    private boolean keepAlive = true;
    /** HTTP/1.0 knows neither chunked bodies nor keep-alive by default. */
    private boolean http10;
    /** Whether the request being answered is a gRPC call, which gets the gateway's own errors as gRPC statuses. */
    private boolean grpc;
    /** Pipelined HTTP/1.1 messages that arrived while the exchange before them was still answering. */
    private final ArrayDeque<Object> parked = new ArrayDeque<>();
    /** Whether the client is another region's gateway, whose stamps are followed (everyone else's are removed). */
    private boolean trustedPeer;
    /** HTTP/1.x: whether the first request has been taken, the only one that may ask for h2c. */
    private boolean upgradeOffered;
    /** The rules' view of the request being decided, one per handler: a decision is made within one call. */
    private final HttpRequestView view = new HttpRequestView();
    /**
     * HTTP/1.x: whether a read of the client's connection is being handled, so that {@link #channelReadComplete}
     * will follow and flush what was written upstream meanwhile: a request's head and its end go out in one flush.
     * Every other way in (the upstream's events, a connection made, a timeout, writability) clears it first, so that
     * a read whose end is not signalled (TLS can deliver a piece from a task) never leaves a request unflushed.
     */
    private boolean reading;
    /**
     * HTTP/1.1: the codec's context, past which upstream answers taken as bytes are written ({@link RawAnswers});
     * {@code null} until looked up, and on an HTTP/2 stream.
     */
    private ChannelHandlerContext codec;

    ProxyHandler(Proxy proxy, boolean http2Stream, ConnectionGuard guard) {
        this.proxy = proxy;
        this.http2Stream = http2Stream;
        this.guard = guard;
    }

    /**
     * Where an exchange is. The legal moves are {@link #mayMoveTo written out}; anything else is a bug in the
     * gateway, refused loudly rather than relaying a confused answer.
     */
    enum Phase {
        /** An upstream connection (or stream) is being made for an attempt. */
        CONNECTING,
        /** The request went upstream (its body may still be on its way); no final answer has come yet. */
        AWAITING_ANSWER,
        /** An interim (1xx) answer with a body: dropped up to its end, the final answer follows. */
        SKIPPING_INTERIM,
        /** A gateway failure (502, 503, 504) that will be retried: its body is dropped up to its end. */
        DISCARDING,
        /** The final answer's head went to the client; its body streams until its last piece. */
        STREAMING,
        /** Answered, failed or abandoned: nothing more happens. */
        DONE;

        /** Whether an exchange in this phase may move to {@code next}. */
        boolean mayMoveTo(Phase next) {
            return switch (this) {
                case CONNECTING -> next == AWAITING_ANSWER || next == CONNECTING || next == DONE;
                case AWAITING_ANSWER -> next != AWAITING_ANSWER;
                case SKIPPING_INTERIM -> next == AWAITING_ANSWER || next == CONNECTING || next == DONE;
                case DISCARDING -> next == CONNECTING || next == DONE;
                case STREAMING -> next == DONE;
                case DONE -> false;
            };
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.trustedPeer = proxy.trustedPeers.trusts(ctx.channel().remoteAddress()); // an h2 stream's is its parent's
        this.timer = proxy.timeouts.entry(ctx.executor(), now -> timerFired());
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timer.remove(); // an HTTP/1.1 connection that became HTTP/2: its streams have handlers of their own
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        reading = !http2Stream;
        if (!parked.isEmpty() || (exchange != null ? exchange.requestEnded : !takesRequests())) {
            parked.add(msg);
            updateReading();
            return;
        }
        read(msg);
    }

    private void read(Object msg) {
        if (msg instanceof HttpRequest req) {
            requestStarted();
            if (msg instanceof LastHttpContent whole) { // HTTP/2 headers that end the stream: a request without body
                request(new DefaultHttpRequest(req.protocolVersion(), req.method(), req.uri(), req.headers()));
                content(new DefaultLastHttpContent(whole.content(), whole.trailingHeaders()));
            } else {
                request(req);
            }
            if (exchange == null) { // answered by the gateway itself
                requestEnded();
            }
        } else if (msg instanceof HttpContent c) {
            content(c);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Tells the guard a request is in progress, once per request. */
    private void requestStarted() {
        if (!requestOpen) {
            requestOpen = true;
            guard.requestStarted();
        }
    }

    /** Tells the guard the request's answer is done, once per request. */
    private void requestEnded() {
        if (requestOpen) {
            requestOpen = false;
            guard.requestEnded();
        }
    }

    private void request(HttpRequest req) {
        CharSequence type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
        grpc = type != null && AsciiString.regionMatches(type, true, 0, GRPC, 0, GRPC.length());
        if (req.decoderResult().isFailure()) {
            Throwable cause = req.decoderResult().cause();
            answer(cause instanceof TooLongHttpHeaderException
                   ? ProblemDetail.of(431, "request-header-fields-too-large", cause.getMessage())
                   : ProblemDetail.of(400, "bad-request", "unreadable request: " + cause.getMessage()))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        if (!http2Stream) {
            if (!upgradeOffered) { // clients ask for h2c on their first request only
                upgradeOffered = true;
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
                answer(ProblemDetail.of(417, "expectation-failed",
                                   "expect: '" + req.headers().get(HttpHeaderNames.EXPECT) + "' is not supported"));
                return;
            }
        }
        String uri = req.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        FullHttpResponse local = proxy.local(path, req.headers());
        if (local != null) {
            respond(local);
            return;
        }
        Decision d;
        try {
            d = proxy.dispatcher.decide(proxy.state.get(), req.method().name(), path, req.headers(), view.of(req),
                                        trustedPeer);
        } finally {
            view.clear();
        }
        Upstreams.Pool pool = d.forwards() ? proxy.upstreams.pool(d.target(), d.version()) : null;
        if (pool == null) {
            ProblemDetail p = d.forwards() ? ProblemDetail.of(502, "no-upstream", "no upstream endpoints configured for region "
                                                                       + d.target())
                                     : d.problem();
            answer(p);
            record(req, d, p.status(), proxy.timeouts.now());
            return;
        }
        exchange = new Exchange(req, d, pool, takesBytes(req));
        exchange.start();
    }

    /**
     * Whether the upstream's answer to {@code req} may be relayed as the bytes it came in ({@link RawAnswers}): to
     * an HTTP/1.1 client that keeps its connection, past the codec, whose record of requests is then kept in step
     * ({@link ServerCodecs}). Not to {@code HEAD} or {@code CONNECT}, whose answers the codec frames its own way, nor
     * to a request with a {@code Transfer-Encoding}, after whose answer the codec may close the connection.
     */
    private boolean takesBytes(HttpRequest req) {
        if (http2Stream || http10 || !keepAlive || !ServerCodecs.available()) {
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

    /** A piece of the request body: the exchange's while it takes the body, dropped once it has given up on it. */
    private void content(HttpContent c) {
        if (exchange != null && !exchange.requestEnded) {
            exchange.requestContent(c);
        } else {
            c.release();
        }
    }

    private ChannelFuture answer(ProblemDetail problem) {
        return respond(grpc ? ProblemAnswers.grpc(problem, proxy.servedByHeader, proxy.self)
                            : ProblemAnswers.http(problem, proxy.servedByHeader, proxy.self));
    }

    /** Writes a whole answer of the gateway's own; over HTTP/1.x the connection closes after it unless kept alive. */
    private ChannelFuture respond(FullHttpResponse res) {
        if (!http2Stream && !keepAlive) {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            return ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
        return ctx.writeAndFlush(res);
    }

    private void record(HttpRequest req, Decision d, int status, long started) {
        proxy.metrics.record(req.method().name(), req.uri(), d.unit() == null ? "-" : d.unit(),
                             d.home() == null ? GatewayMetrics.NONE : d.home().id(),
                             d.target() == null ? GatewayMetrics.NONE : d.target().id(),
                             d.route() == null ? GatewayMetrics.NONE : d.route(), status,
                             proxy.timeouts.now() - started);
    }

    /**
     * Reads from the downstream while the exchange can take more of the body: not while its upstream connection
     * is being made or cannot keep up, and not while pipelined requests are parked. Between bodies (what comes next
     * is a request) an HTTP/1.1 connection is read only while the client takes what is written to it.
     */
    private void updateReading() {
        Exchange ex = exchange;
        boolean read = parked.isEmpty() && (ex != null && !ex.requestEnded
                                            ? ex.link != null && ex.link.channel().isWritable()
                                            : takesRequests());
        ChannelConfig config = ctx.channel().config();
        if (config.isAutoRead() != read) { // a volatile read, where setting is an atomic swap
            config.setAutoRead(read);
        }
    }

    /**
     * Whether a new request may be taken up: always on an HTTP/2 stream (HTTP/2's flow control bounds it); on an
     * HTTP/1.1 connection only while the client reads its answers, else a client that pipelines requests and reads
     * nothing would have every answer buffered for it.
     */
    private boolean takesRequests() {
        return http2Stream || ctx.channel().isWritable();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        Exchange ex = exchange;
        if (ex != null && ex.link != null) {
            ex.flushUp();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        reading = false; // parked requests may be taken up below, outside any read of the client
        Exchange ex = exchange;
        boolean writable = ctx.channel().isWritable();
        if (ex != null && ex.link != null) {
            ex.link.channel().config().setAutoRead(writable);
        }
        if (!http2Stream && ctx.channel().isActive()) {
            resume(); // the client caught up: parked requests are taken up, reading resumes
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof HttpServerUpgradeHandler.UpgradeEvent
            || evt instanceof CleartextHttp2ServerUpgradeHandler.PriorKnowledgeUpgradeEvent) {
            // The connection now speaks HTTP/2: its streams get handlers of their own, this one is done.
            ctx.pipeline().remove(this);
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** The exchange in flight is due: it times out (504 before its answer started, cut after). */
    private void timerFired() {
        reading = false;
        Exchange ex = exchange;
        if (ex != null) {
            ex.timedOut();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        timer.remove();
        if (exchange != null) {
            exchange.abandon();
        }
        requestEnded();
        Object msg;
        while ((msg = parked.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // a client that resets its connection is no news
    }

    /** One request's trip upstream and back, across as many attempts as it may take. */
    private final class Exchange implements Connections.Listener {

        final HttpRequest head;
        final HttpRequest original;
        final Decision decision;
        final Upstreams.Pool pool;
        final long started = proxy.timeouts.now();
        Phase phase = Phase.CONNECTING;
        /** The body so far, kept for a replay while the request may run twice and the body is short enough. */
        boolean replayable;
        List<HttpContent> kept; // made on first use, as is pending: most requests have no body
        int keptBytes;
        /** Body pieces waiting for the connection being made, when none is kept. */
        ArrayDeque<HttpContent> pending;
        /** Whether the request's last piece has arrived: the request's side, which runs beside the phases. */
        boolean requestEnded;
        int attempts;
        Upstreams.Endpoint endpoint;
        Connections.Link link;
        /** Whether the attempt's upstream connection may carry another exchange after this answer. */
        boolean responseKeepAlive;
        /** Whether something was written to the attempt's upstream connection since it was last flushed. */
        boolean unflushed;
        int status;
        /** Whether the answer may come as bytes, relayed past the codec as they are. */
        final boolean takesBytes;

        Exchange(HttpRequest req, Decision d, Upstreams.Pool pool, boolean takesBytes) {
            this.takesBytes = takesBytes;
            this.original = req;
            this.decision = d;
            this.pool = pool;
            this.replayable = Upstreams.isRetryable(req);
            HttpHeaders h = req.headers();
            boolean trailers = h.containsValue(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS, true);
            Proxy.stripHopByHop(h, proxy.keptUpstream);
            if (trailers) { // the one TE that crosses a proxy (RFC 9113 section 8.2.2): gRPC servers look for it
                h.set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
            }
            if (http2Stream) {
                Proxy.stripHttp2Extensions(h);
                if (!HttpUtil.isContentLengthSet(req) && !HttpUtil.isTransferEncodingChunked(req)) {
                    HttpUtil.setTransferEncodingChunked(req, true); // the body's length is known only at its end
                }
            }
            h.set(proxy.regionHeader, d.target().id());
            h.set(proxy.hopsHeader, Proxy.hops(d.hops() + 1));
            if (d.unit() != null) {
                h.set(proxy.unitHeader, d.unit());
            }
            if (!h.contains(proxy.originHeader)) {
                h.set(proxy.originHeader, proxy.self);
            }
            this.head = req.protocolVersion() == HttpVersion.HTTP_1_1
                        ? req : new DefaultHttpRequest(HttpVersion.HTTP_1_1, req.method(), req.uri(), h);
        }

        /** Moves to {@code next}, or fails loudly when the move is not a legal one. */
        private void moveTo(Phase next) {
            if (!phase.mayMoveTo(next)) {
                throw new IllegalStateException("exchange of " + original.method() + " " + original.uri() + ": "
                                                + phase + " -> " + next + " (expected: a legal move)");
            }
            phase = next;
        }

        /** Until the answer starts, the response timeout runs, retries included. */
        void start() {
            proxy.inFlight.incrementAndGet();
            timer.arm(started + proxy.responseTimeoutNanos);
            attempt();
        }

        private void attempt() {
            moveTo(Phase.CONNECTING);
            attempts++;
            endpoint = pool.pick(endpoint);
            Connections.Link idle = proxy.connections.pooled(ctx.channel().eventLoop(), endpoint);
            if (idle != null) { // the common case: a kept-alive connection, no future
                connected(idle);
                return;
            }
            Future<Connections.Link> connecting = proxy.connections.acquire(ctx.channel().eventLoop(), endpoint);
            if (connecting.isDone()) {
                connected(connecting);
            } else {
                updateReading();
                connecting.addListener(f -> {
                    reading = false;
                    connected(connecting);
                });
            }
        }

        private void connected(Future<Connections.Link> connecting) {
            if (connecting.isSuccess()) {
                endpoint.connected();
            } else if (Reachability.nothingAnswered(connecting.cause())) {
                endpoint.refused();
            }
            if (phase == Phase.DONE) {
                if (connecting.isSuccess()) {
                    connecting.getNow().release();
                }
                return;
            }
            if (!connecting.isSuccess()) {
                failed(connecting.cause());
                return;
            }
            connected(connecting.getNow());
        }

        private void connected(Connections.Link connected) {
            link = connected;
            unflushed = false;
            link.bind(this);
            moveTo(Phase.AWAITING_ANSWER);
            sendUp(head);
            if (replayable && kept != null) {
                for (HttpContent c : kept) {
                    sendUp(c.retainedDuplicate());
                }
            } else if (replayable && requestEnded) { // a request without body, whose end is not kept
                sendUp(LastHttpContent.EMPTY_LAST_CONTENT);
            } else if (pending != null) {
                HttpContent c;
                while ((c = pending.poll()) != null) {
                    sendUp(c);
                }
            }
            if (!reading) { // else the end of the client's read flushes, with the request's end if it came in it
                flushUp();
            }
            if (!ctx.channel().config().isAutoRead()) {
                updateReading();
            }
        }

        void requestContent(HttpContent c) {
            boolean last = c instanceof LastHttpContent;
            requestEnded = last;
            if (replayable && keptBytes + c.content().readableBytes() > MAX_REPLAY_BYTES) {
                stopKeeping();
            }
            if (replayable && c == LastHttpContent.EMPTY_LAST_CONTENT && kept == null) {
                // a request without body (most are): nothing to keep, a replay ends it the same way
                if (link != null) {
                    sendUp(c);
                }
            } else if (replayable) {
                if (kept == null) {
                    kept = new ArrayList<>(2);
                }
                kept.add(c);
                keptBytes += c.content().readableBytes();
                if (link != null) {
                    sendUp(c.retainedDuplicate());
                }
            } else if (link != null) {
                sendUp(c);
            } else {
                pendingBody().add(c);
            }
            if (last || link != null && !link.channel().isWritable()) {
                if (last && link != null) {
                    flushUp();
                }
                updateReading();
            }
        }

        /** Writes {@code msg} to the attempt's upstream connection, to go out at the next {@link #flushUp()}. */
        private void sendUp(Object msg) {
            Channel up = link.channel();
            up.write(msg, up.voidPromise());
            unflushed = true;
        }

        /** Flushes the attempt's upstream connection when something was written to it since the last flush. */
        void flushUp() {
            if (unflushed) {
                unflushed = false;
                link.channel().flush();
            }
        }

        /** The body outgrew the replay limit: what was kept is sent (or goes out once connected), not kept. */
        private void stopKeeping() {
            replayable = false;
            if (kept == null) {
                return;
            }
            if (link != null) {
                kept.forEach(HttpContent::release);
            } else {
                pendingBody().addAll(kept);
            }
            kept = null;
        }

        private ArrayDeque<HttpContent> pendingBody() {
            if (pending == null) {
                pending = new ArrayDeque<>(4);
            }
            return pending;
        }

        private boolean mayRetry() {
            return replayable && attempts < proxy.maxAttempts;
        }

        @Override
        public void responseHead(HttpResponse res) {
            reading = false;
            if (res.decoderResult().isFailure()) { // not HTTP: Netty's stand-in (status 999) is no answer to relay
                ReferenceCountUtil.release(res);
                fail(res.decoderResult().cause(), false);
                return;
            }
            int code = res.status().code();
            boolean whole = res instanceof LastHttpContent;
            if (code < 200) { // 100 Continue was answered by this gateway; the final answer follows
                if (!whole) {
                    moveTo(Phase.SKIPPING_INTERIM);
                }
                ReferenceCountUtil.release(res);
                return;
            }
            boolean gatewayFailure = code == 502 || code == 503 || code == 504
                                     || whole && GRPC_UNAVAILABLE.equals(res.headers().get(GRPC_STATUS));
            endpoint.report(!gatewayFailure);
            responseKeepAlive = HttpUtil.isKeepAlive(res);
            if (gatewayFailure && mayRetry()) {
                if (whole) {
                    ReferenceCountUtil.release(res);
                    retry();
                } else {
                    moveTo(Phase.DISCARDING);
                }
                return;
            }
            status = code;
            moveTo(Phase.STREAMING);
            timer.arm(proxy.timeouts.now() + proxy.idleTimeoutNanos); // from now on, the longest pause
            HttpHeaders h = res.headers();
            Proxy.stripHopByHop(h);
            if (endpoint.http2()) {
                Proxy.stripHttp2Extensions(h);
            }
            h.set(proxy.servedByHeader, decision.target().id());
            h.set(proxy.routeHeader, decision.route());
            if (!http2Stream) {
                frameForClient(res, code);
            }
            if (whole) { // kept whole, so that an HTTP/2 client gets headers that end the stream (gRPC's errors)
                last(res);
            } else {
                ctx.write(res, ctx.voidPromise());
            }
        }

        @Override
        public void responseContent(HttpContent c) {
            reading = false;
            if (c.decoderResult().isFailure()) { // a broken chunk: the stand-in end must not pass for the body's end
                c.release();
                fail(c.decoderResult().cause(), false);
                return;
            }
            boolean last = c instanceof LastHttpContent;
            if (phase == Phase.SKIPPING_INTERIM || phase == Phase.DISCARDING) {
                c.release();
                if (last && phase == Phase.SKIPPING_INTERIM) {
                    moveTo(Phase.AWAITING_ANSWER);
                } else if (last) {
                    retry();
                }
                return;
            }
            if (!last) {
                timer.arm(proxy.timeouts.now() + proxy.idleTimeoutNanos);
                ctx.write(c, ctx.voidPromise());
                if (!ctx.channel().isWritable()) {
                    link.channel().config().setAutoRead(false);
                }
                return;
            }
            last(c);
        }

        @Override
        public boolean takesBytes() {
            return takesBytes;
        }

        @Override
        public boolean asksHead() {
            return original.method().equals(HttpMethod.HEAD);
        }

        @Override
        public AsciiString[] stampNames() {
            return proxy.answerStamps;
        }

        /**
         * A final answer's head as it came, less its hop-by-hop lines (see {@link RawAnswers}): stamped and written
         * past the codec. The answers that may be retried never come this way.
         */
        @Override
        public void rawHead(ByteBuf head, int code, boolean keepAlive, boolean last) {
            reading = false;
            endpoint.report(true);
            responseKeepAlive = keepAlive;
            status = code;
            moveTo(Phase.STREAMING);
            timer.arm(proxy.timeouts.now() + proxy.idleTimeoutNanos);
            stamp(head, proxy.servedByHeader, decision.target().id());
            stamp(head, proxy.routeHeader, decision.route());
            head.writeShort(CRLF);
            ServerCodecs.answered((HttpServerCodec) codec.handler());
            if (last) {
                lastBytes(head);
            } else {
                codec.write(head, codec.voidPromise());
            }
        }

        @Override
        public void rawBody(ByteBuf body, boolean last) {
            reading = false;
            if (!last) {
                timer.arm(proxy.timeouts.now() + proxy.idleTimeoutNanos);
                codec.write(body, codec.voidPromise());
                if (!ctx.channel().isWritable()) {
                    link.channel().config().setAutoRead(false);
                }
                return;
            }
            lastBytes(body);
        }

        /** The end of an answer taken as bytes, which ends the exchange; the client keeps its connection. */
        private void lastBytes(ByteBuf bytes) {
            endAttempt();
            codec.writeAndFlush(bytes, codec.voidPromise());
            finish();
        }

        /** Relays the end of the response, which ends the exchange. */
        private void last(Object msg) {
            endAttempt();
            if (!http2Stream && !keepAlive) {
                ctx.writeAndFlush(msg).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.writeAndFlush(msg, ctx.voidPromise());
            }
            finish();
        }

        private void retry() {
            endAttempt();
            attempt();
        }

        /**
         * Frames an upstream answer for an HTTP/1.x client: a body of unknown length goes chunked (so the
         * connection stays reusable), or to an HTTP/1.0 client, unchunked until the connection closes.
         */
        private void frameForClient(HttpResponse res, int code) {
            HttpHeaders h = res.headers();
            boolean unframed = !HttpUtil.isContentLengthSet(res) && code != 204 && code != 304
                               && original.method() != HttpMethod.HEAD;
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

        /** The attempt's upstream connection goes back to the pool if it can carry another exchange. */
        private void endAttempt() {
            if (requestEnded && responseKeepAlive) {
                link.release();
            } else {
                link.abort(); // it answered before the request was all sent, or will not keep alive
            }
            link = null;
        }

        @Override
        public void readComplete() {
            ctx.flush();
        }

        @Override
        public void writable() {
            updateReading();
        }

        @Override
        public void failed(Throwable cause) {
            reading = false;
            fail(cause, false);
        }

        /** The attempt broke ({@code cause}) or the exchange's deadline passed: retried, answered, or cut. */
        private void fail(Throwable cause, boolean timedOut) {
            if (phase == Phase.DONE) {
                return;
            }
            endpoint.report(false);
            if (link != null) {
                link.abort();
                link = null;
            }
            boolean answerStarted = phase == Phase.STREAMING;
            if (!answerStarted && !timedOut && mayRetry()) {
                attempt();
                return;
            }
            if (!answerStarted) {
                ProblemDetail p = timedOut
                            ? ProblemDetail.of(504, "upstream-timeout", "upstream " + endpoint + " of region "
                                                                   + decision.target() + " did not answer in time")
                            : ProblemDetail.of(502, "upstream-failed", "upstream " + endpoint + " of region "
                                                                  + decision.target() + " failed: " + ProblemAnswers.reason(cause));
                status = p.status();
                answer(p);
                finish();
            } else {
                finish();
                ctx.close(); // the client must not take a cut-off body for a whole one
            }
        }

        void timedOut() {
            fail(null, true);
        }

        /** The client went away: the upstream connection cannot be reused mid-exchange. */
        void abandon() {
            if (link != null) {
                link.abort();
                link = null;
            }
            status = 499; // nginx's "client closed request"
            finish();
        }

        private void finish() {
            moveTo(Phase.DONE);
            timer.disarm();
            if (kept != null) {
                kept.forEach(HttpContent::release);
                kept = null;
            }
            if (pending != null) {
                pending.forEach(HttpContent::release);
                pending = null;
            }
            record(original, decision, status, started);
            proxy.inFlight.decrementAndGet();
            exchange = null;
            requestEnded();
            if (!http2Stream) {
                resume();
            }
        }
    }

    private static final int CRLF = '\r' << 8 | '\n';

    /** Appends the header line {@code name: value} to a head being written as bytes. */
    private static void stamp(ByteBuf head, AsciiString name, CharSequence value) {
        ByteBufUtil.copy(name, head);
        head.writeShort(':' << 8 | ' ');
        head.writeCharSequence(value, StandardCharsets.US_ASCII);
        head.writeShort(CRLF);
    }

    /**
     * Takes up what is parked: the rest of the body of the exchange in flight, then the pipelined requests behind
     * it, as long as the client reads its answers.
     */
    private void resume() {
        Object msg;
        while ((msg = parked.peek()) != null
               && (exchange != null ? !exchange.requestEnded : takesRequests())) {
            read(parked.poll());
        }
        if (ctx.channel().isActive()) {
            updateReading();
        }
    }

}
