package io.unitas.gateway;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
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
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;

/**
 * The per-request path on one downstream HTTP/1.1 connection or HTTP/2 stream: the {@link Dispatcher} decides, then
 * the request is relayed to an upstream connection on the same event loop and the response back, both bodies
 * streamed with backpressure. A failed attempt is retried on another endpoint only when the request may run twice
 * and nothing of the response has been sent yet.
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
    /** The timeouts' one timer, re-armed when it fires before the exchange in flight is due. */
    private ScheduledFuture<?> timer;
    /** When {@link #timer} fires, in {@link System#nanoTime()}. */
    private long timerAt;
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

    ProxyHandler(Proxy proxy, boolean http2Stream) {
        this.proxy = proxy;
        this.http2Stream = http2Stream;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.trustedPeer = proxy.trustedPeers.trusts(ctx.channel().remoteAddress()); // an h2 stream's is its parent's
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!parked.isEmpty() || exchange != null && exchange.requestEnded) {
            parked.add(msg);
            updateReading();
            return;
        }
        read(msg);
    }

    private void read(Object msg) {
        if (msg instanceof HttpRequest req) {
            if (msg instanceof LastHttpContent whole) { // HTTP/2 headers that end the stream: a request without body
                request(new DefaultHttpRequest(req.protocolVersion(), req.method(), req.uri(), req.headers()));
                content(new DefaultLastHttpContent(whole.content(), whole.trailingHeaders()));
            } else {
                request(req);
            }
        } else if (msg instanceof HttpContent c) {
            content(c);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void request(HttpRequest req) {
        CharSequence type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
        grpc = type != null && AsciiString.regionMatches(type, true, 0, GRPC, 0, GRPC.length());
        if (req.decoderResult().isFailure()) {
            Throwable cause = req.decoderResult().cause();
            answer(new Problem(400, "bad-request", "unreadable request: " + cause.getMessage(), 0))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        if (!http2Stream) {
            if (ctx.pipeline().get(HttpServerUpgradeHandler.class) != null) {
                ctx.pipeline().remove(HttpServerUpgradeHandler.class); // clients ask for h2c on their first request
            }
            keepAlive = HttpUtil.isKeepAlive(req);
            http10 = req.protocolVersion() == HttpVersion.HTTP_1_0;
            if (HttpUtil.is100ContinueExpected(req)) {
                ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                                                              Unpooled.EMPTY_BUFFER), ctx.voidPromise());
            } else if (req.headers().contains(HttpHeaderNames.EXPECT)) { // RFC 9110 defines only 100-continue
                answer(new Problem(417, "expectation-failed",
                                   "expect: '" + req.headers().get(HttpHeaderNames.EXPECT) + "' is not supported", 0));
                return;
            }
        }
        String uri = req.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        FullHttpResponse local = proxy.local(path);
        if (local != null) {
            respond(local);
            return;
        }
        Decision d = proxy.dispatcher.decide(proxy.state.get(), req.method().name(), path, req.headers(),
                                             new HttpRequestView(req), trustedPeer);
        Upstreams.Pool pool = d.forwards() ? proxy.upstreams.pool(d.target(), d.version()) : null;
        if (pool == null) {
            Problem p = d.forwards() ? new Problem(502, "no-upstream", "no upstream endpoints configured for region "
                                                                       + d.target(), 0)
                                     : d.problem();
            answer(p);
            record(req, d, p.status(), System.nanoTime());
            return;
        }
        exchange = new Exchange(req, d, pool);
        exchange.start();
    }

    /** A piece of the request body: the exchange's while it takes the body, dropped once it has given up on it. */
    private void content(HttpContent c) {
        if (exchange != null && !exchange.requestEnded) {
            exchange.requestContent(c);
        } else {
            c.release();
        }
    }

    private ChannelFuture answer(Problem problem) {
        return respond(grpc ? problem.toGrpcResponse(proxy.servedByHeader, proxy.self)
                            : problem.toResponse(proxy.servedByHeader, proxy.self));
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
                             System.nanoTime() - started);
    }

    /**
     * Reads from the downstream while the exchange can take more of the body: not while its upstream connection
     * is being made or cannot keep up, and not while pipelined requests are parked.
     */
    private void updateReading() {
        Exchange ex = exchange;
        boolean read = parked.isEmpty() && (ex == null || ex.requestEnded
                                            || ex.link != null && ex.link.channel().isWritable());
        ctx.channel().config().setAutoRead(read);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Exchange ex = exchange;
        if (ex != null && ex.link != null) {
            ex.link.channel().flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Exchange ex = exchange;
        if (ex != null && ex.link != null) {
            ex.link.channel().config().setAutoRead(ctx.channel().isWritable());
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

    /**
     * Times out the exchange in flight when it is due. One timer serves every exchange of a keep-alive connection
     * and every move of a streaming answer's deadline: it is set again only when it would fire too late.
     */
    private void armTimer(long deadline) {
        if (timer != null && timerAt - deadline <= 0) {
            return;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        schedule(deadline);
    }

    private void schedule(long at) {
        timerAt = at;
        timer = ctx.executor().schedule(this::timerFired, at - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    private void timerFired() {
        timer = null;
        Exchange ex = exchange;
        if (ex != null) {
            if (ex.deadline - System.nanoTime() <= 0) {
                ex.timedOut();
            } else {
                schedule(ex.deadline);
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
        if (exchange != null) {
            exchange.abandon();
        }
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
        final long started = System.nanoTime();
        /** Until the answer starts, the response timeout; then the idle timeout from its latest piece. */
        long deadline = started + proxy.responseTimeoutNanos;
        /** The body so far, kept for a replay while the request may run twice and the body is short enough. */
        boolean replayable;
        List<HttpContent> kept; // made on first use, as is pending: most requests have no body
        int keptBytes;
        /** Body pieces waiting for the connection being made, when none is kept. */
        ArrayDeque<HttpContent> pending;
        boolean requestEnded;
        int attempts;
        Upstreams.Endpoint endpoint;
        Connections.Link link;
        boolean responseStarted;
        boolean responseKeepAlive;
        boolean discarding;
        boolean informational;
        boolean timedOut;
        boolean done;
        int status;

        Exchange(HttpRequest req, Decision d, Upstreams.Pool pool) {
            this.original = req;
            this.decision = d;
            this.pool = pool;
            this.replayable = Upstreams.isRetryable(req);
            HttpHeaders h = req.headers();
            boolean trailers = h.containsValue(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS, true);
            Proxy.stripHopByHop(h);
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
            h.setInt(proxy.hopsHeader, d.hops() + 1);
            if (d.unit() != null) {
                h.set(proxy.unitHeader, d.unit());
            }
            if (!h.contains(proxy.originHeader)) {
                h.set(proxy.originHeader, proxy.self);
            }
            this.head = req.protocolVersion() == HttpVersion.HTTP_1_1
                        ? req : new DefaultHttpRequest(HttpVersion.HTTP_1_1, req.method(), req.uri(), h);
        }

        void start() {
            proxy.inFlight.incrementAndGet();
            armTimer(deadline);
            attempt();
        }

        private void attempt() {
            attempts++;
            endpoint = pool.pick(endpoint);
            Future<Connections.Link> connecting = proxy.connections.acquire(ctx.channel().eventLoop(), endpoint);
            if (connecting.isDone()) {
                connected(connecting);
            } else {
                updateReading();
                connecting.addListener(f -> connected(connecting));
            }
        }

        private void connected(Future<Connections.Link> connecting) {
            if (done) {
                if (connecting.isSuccess()) {
                    connecting.getNow().release();
                }
                return;
            }
            if (!connecting.isSuccess()) {
                failed(connecting.cause());
                return;
            }
            link = connecting.getNow();
            link.bind(this);
            Channel up = link.channel();
            up.write(head, up.voidPromise());
            if (replayable && kept != null) {
                for (HttpContent c : kept) {
                    up.write(c.retainedDuplicate(), up.voidPromise());
                }
            } else if (pending != null) {
                HttpContent c;
                while ((c = pending.poll()) != null) {
                    up.write(c, up.voidPromise());
                }
            }
            up.flush();
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
            if (replayable) {
                if (kept == null) {
                    kept = new ArrayList<>(2);
                }
                kept.add(c);
                keptBytes += c.content().readableBytes();
                if (link != null) {
                    link.channel().write(c.retainedDuplicate(), link.channel().voidPromise());
                }
            } else if (link != null) {
                link.channel().write(c, link.channel().voidPromise());
            } else {
                pendingBody().add(c);
            }
            if (last || link != null && !link.channel().isWritable()) {
                if (last && link != null) {
                    link.channel().flush();
                }
                updateReading();
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
            return replayable && attempts < proxy.maxAttempts && !timedOut;
        }

        @Override
        public void responseHead(HttpResponse res) {
            int code = res.status().code();
            boolean whole = res instanceof LastHttpContent;
            if (code < 200) { // 100 Continue was answered by this gateway; the final answer follows
                informational = !whole;
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
                    discarding = true;
                }
                return;
            }
            status = code;
            responseStarted = true;
            deadline = System.nanoTime() + proxy.idleTimeoutNanos;
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
            boolean last = c instanceof LastHttpContent;
            if (informational || discarding) {
                c.release();
                if (last && informational) {
                    informational = false;
                } else if (last) {
                    discarding = false;
                    retry();
                }
                return;
            }
            if (!last) {
                deadline = System.nanoTime() + proxy.idleTimeoutNanos;
                ctx.write(c, ctx.voidPromise());
                if (!ctx.channel().isWritable()) {
                    link.channel().config().setAutoRead(false);
                }
                return;
            }
            last(c);
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
            if (done) {
                return;
            }
            endpoint.report(false);
            if (link != null) {
                link.abort();
                link = null;
            }
            discarding = false;
            informational = false;
            if (!responseStarted && mayRetry()) {
                attempt();
                return;
            }
            if (!responseStarted) {
                Problem p = timedOut
                            ? new Problem(504, "upstream-timeout", "upstream " + endpoint + " of region "
                                                                   + decision.target() + " did not answer in time", 0)
                            : new Problem(502, "upstream-failed", "upstream " + endpoint + " of region "
                                                                  + decision.target() + " failed: " + Problem.reason(cause), 0);
                status = p.status();
                answer(p);
                finish();
            } else {
                finish();
                ctx.close(); // the client must not take a cut-off body for a whole one
            }
        }

        void timedOut() {
            if (!done) {
                timedOut = true;
                failed(new TimeoutException());
            }
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
            done = true;
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
            if (!http2Stream) {
                resume();
            }
        }
    }

    /** Takes up the pipelined requests parked behind the exchange that just ended. */
    private void resume() {
        Object msg;
        while ((exchange == null || !exchange.requestEnded) && (msg = parked.poll()) != null) {
            read(msg);
        }
        if (ctx.channel().isActive()) {
            updateReading();
        }
    }

}
