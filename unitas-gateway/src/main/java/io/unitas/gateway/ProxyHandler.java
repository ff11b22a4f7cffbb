package io.unitas.gateway;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

import io.unitas.core.ProblemDetail;

/**
 * The per-request path on one downstream HTTP/1.1 connection or HTTP/2 stream: the {@link Dispatcher} decides, then
 * the gateway answers itself or an {@link Exchange} relays the request to an upstream connection on the same event
 * loop and the answer back. An HTTP/2 stream carries one exchange; an HTTP/1.1 connection one after another, which
 * its {@link Http1Connection} takes up in order (pipelining, keep-alive, h2c). What crosses in the headers is
 * {@link ForwardedHeaders}'. The handler owns the client channel's reading: the request body is read only as fast
 * as the upstream takes it, and no next request is taken up while the client is not reading the answers before it.
 */
final class ProxyHandler extends ChannelInboundHandlerAdapter {

    private static final AsciiString GRPC = AsciiString.cached("application/grpc");

    private final Proxy proxy;
    /** The connection's guard, told when a request is in progress so that it does not time the connection out. */
    private final ConnectionGuard guard;
    /** The rules' view of the request being decided, one per handler: a decision is made within one call. */
    private final HttpRequestView view = new HttpRequestView();
    /** Whether this handler serves an HTTP/2 stream; else an HTTP/1.x connection, {@link #http1} once added. */
    private final boolean http2Stream;
    private ChannelHandlerContext ctx;
    /** The HTTP/1.x connection's own state; {@code null} on an HTTP/2 stream. */
    private Http1Connection http1;
    private Exchange exchange;
    /** The deadline of the exchange in flight: one entry serves every exchange of a keep-alive connection. */
    private Timeouts.Entry timer;
    /** Whether the guard has been told of a request whose answer is not done yet. */
    private boolean requestOpen;
    /** Whether the request being answered is a gRPC call, which gets the gateway's own errors as gRPC statuses. */
    private boolean grpc;
    /** Whether the client is another region's gateway, whose stamps are followed (everyone else's are removed). */
    private boolean trustedPeer;
    /**
     * HTTP/1.x: whether a read of the client's connection is being handled, so that {@link #channelReadComplete}
     * will follow and flush what was written upstream meanwhile: a request's head and its end go out in one flush.
     * Every other way in (the upstream's events, a connection made, a timeout, writability) clears it first, so that
     * a read whose end is not signalled (TLS can deliver a piece from a task) never leaves a request unflushed.
     */
    private boolean readingClient;

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
        this.http1 = http2Stream ? null : new Http1Connection(ctx);
        this.trustedPeer = proxy.trustedPeers.trusts(ctx.channel()); // by address or certificate
        this.timer = proxy.timeouts.entry(ctx.executor(), now -> timerFired());
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timer.remove(); // an HTTP/1.1 connection that became HTTP/2: its streams have handlers of their own
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (http1 != null) {
            readingClient = true;
            if (http1.parks(msg, exchange)) {
                updateReading();
                return;
            }
        } else if (exchange != null && exchange.requestEnded()) {
            ReferenceCountUtil.release(msg); // a stream ends with its request: nothing follows it
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
        if (http1 != null) {
            ProblemDetail refused = http1.begin(req);
            if (refused != null) {
                answer(refused);
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
            ProblemDetail p = d.forwards()
                              ? ProblemDetail.of(502, "no-upstream", "no upstream endpoints configured for region "
                                                                     + d.target())
                              : d.problem();
            answer(p);
            record(req, d, p.status(), proxy.timeouts.now());
            return;
        }
        exchange = new Exchange(this, req, d, pool, http1 != null && http1.takesBytes(req));
        exchange.start();
    }

    /** A piece of the request body: the exchange's while it takes the body, dropped once it has given up on it. */
    private void content(HttpContent c) {
        if (exchange != null && !exchange.requestEnded()) {
            exchange.requestContent(c);
        } else {
            c.release();
        }
    }

    /** Answers with {@code problem}, as a gRPC status to a gRPC call. */
    ChannelFuture answer(ProblemDetail problem) {
        AsciiString servedBy = proxy.headers.servedByHeader;
        return respond(grpc ? ProblemAnswers.grpc(problem, servedBy, proxy.self)
                            : ProblemAnswers.http(problem, servedBy, proxy.self));
    }

    /** Writes a whole answer of the gateway's own; over HTTP/1.x the connection closes after it unless kept alive. */
    private ChannelFuture respond(FullHttpResponse res) {
        if (closesAfterAnswer()) {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            return ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
        return ctx.writeAndFlush(res);
    }

    /** Writes and flushes an answer's end; over HTTP/1.x the connection closes after it unless kept alive. */
    void writeLast(Object msg) {
        if (closesAfterAnswer()) {
            ctx.writeAndFlush(msg).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(msg, ctx.voidPromise());
        }
    }

    private boolean closesAfterAnswer() {
        return http1 != null && !http1.keepsAlive();
    }

    /** Counts and logs one answered request, which took from {@code started} (a ticker reading) until now. */
    void record(HttpRequest req, Decision d, int status, long started) {
        proxy.metrics.record(req.method().name(), req.uri(), d.unit() == null ? "-" : d.unit(),
                             d.home() == null ? GatewayMetrics.NONE : d.home().id(),
                             d.target() == null ? GatewayMetrics.NONE : d.target().id(),
                             d.route() == null ? GatewayMetrics.NONE : d.route(), status,
                             proxy.timeouts.now() - started);
    }

    /** The exchange in flight is over: its request's answer is done, what the client pipelined may be taken up. */
    void exchangeEnded() {
        exchange = null;
        requestEnded();
        if (http1 != null) {
            resume();
        }
    }

    /**
     * Reads from the downstream while the exchange can take more of the body: not while its upstream connection
     * is being made or cannot keep up, and not while pipelined requests are parked. Between bodies (what comes next
     * is a request) an HTTP/1.1 connection is read only while the client takes what is written to it.
     */
    void updateReading() {
        Exchange ex = exchange;
        boolean read = (http1 == null || !http1.hasParked())
                       && (ex != null && !ex.requestEnded() ? ex.upstreamWritable()
                                                            : http1 == null || http1.takesRequests());
        ChannelConfig config = ctx.channel().config();
        if (config.isAutoRead() != read) { // a volatile read, where setting is an atomic swap
            config.setAutoRead(read);
        }
    }

    /** See {@link #readingClient}. */
    boolean readingClient() {
        return readingClient;
    }

    /** Something other than a read of the client came in: see {@link #readingClient}. */
    void notReadingClient() {
        readingClient = false;
    }

    Proxy proxy() {
        return proxy;
    }

    ChannelHandlerContext context() {
        return ctx;
    }

    /** The HTTP/1.x connection's state, or {@code null} on an HTTP/2 stream. */
    Http1Connection http1() {
        return http1;
    }

    Timeouts.Entry timer() {
        return timer;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readingClient = false;
        Exchange ex = exchange;
        if (ex != null) {
            ex.flushUp();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        readingClient = false; // parked requests may be taken up below, outside any read of the client
        Exchange ex = exchange;
        if (ex != null) {
            ex.clientWritable(ctx.channel().isWritable());
        }
        if (http1 != null && ctx.channel().isActive()) {
            resume(); // the client caught up: parked requests are taken up, reading resumes
        }
    }

    /**
     * Takes up what is parked: the rest of the body of the exchange in flight, then the pipelined requests behind
     * it, as long as the client reads its answers.
     */
    private void resume() {
        Object msg;
        while ((msg = http1.unpark(exchange)) != null) {
            read(msg);
        }
        if (ctx.channel().isActive()) {
            updateReading();
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
        readingClient = false;
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
        if (http1 != null) {
            http1.dropParked();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // a client that resets its connection is no news
    }
}
