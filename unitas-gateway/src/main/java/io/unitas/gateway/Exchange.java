package io.unitas.gateway;

import java.util.ArrayDeque;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;

import io.unitas.core.ProblemDetail;
import io.unitas.gateway.ProxyHandler.Phase;

/**
 * One request's trip upstream and back, across as many attempts as it may take: an endpoint of the decided region is
 * picked and connected to, the request sent, its answer awaited and relayed to the client, both bodies streamed with
 * backpressure. A failed attempt is retried on another endpoint only when the request may run twice (its body is in
 * a {@link ReplayBuffer}) and nothing of the answer has been sent yet. The exchange moves through the
 * {@link Phase phases}; its deadline is its handler's entry of the gateway's {@link Timeouts}: the response timeout
 * until the answer starts, retries included, then the idle timeout between two pieces of it. Everything runs on the
 * client's event loop, as does the upstream connection.
 */
final class Exchange implements Connections.Listener {

    private static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
    /** A gRPC server's "not now" (overloaded, shutting down), in a headers-only answer: a gateway failure. */
    private static final String GRPC_UNAVAILABLE = "14";

    private final ProxyHandler client;
    private final Proxy proxy;
    private final ChannelHandlerContext ctx;
    /** The client's HTTP/1.1 connection, or {@code null} when the exchange answers an HTTP/2 stream. */
    private final Http1Connection http1;
    private final Timeouts.Entry timer;
    private final HttpRequest original;
    /** The request's head as it goes upstream ({@link ForwardedHeaders#toUpstream}). */
    private final HttpRequest head;
    private final Decision decision;
    private final Upstreams.Pool pool;
    private final long started;
    /** Whether the answer may come as bytes, relayed past the codec as they are. */
    private final boolean takesBytes;
    private Phase phase = Phase.CONNECTING;
    /** The body kept for a replay; {@code null} when the request may not run twice or its body outgrew the buffer. */
    private ReplayBuffer replay;
    /** Body pieces waiting for the connection being made, when none is kept; made on first use. */
    private ArrayDeque<HttpContent> pending;
    /** Whether the request's last piece has arrived: the request's side, which runs beside the phases. */
    private boolean requestEnded;
    private int attempts;
    private Upstreams.Endpoint endpoint;
    private Connections.Link link;
    /** Whether the attempt's upstream connection may carry another exchange after this answer. */
    private boolean responseKeepAlive;
    /** Whether something was written to the attempt's upstream connection since it was last flushed. */
    private boolean unflushed;
    private int status;

    /**
     * The exchange of {@code req} for {@code client}, forwarded as {@code d} decided to an endpoint of {@code pool};
     * {@code takesBytes} when its answer may be relayed as the bytes it comes in ({@link Http1Connection#takesBytes}).
     */
    Exchange(ProxyHandler client, HttpRequest req, Decision d, Upstreams.Pool pool, boolean takesBytes) {
        this.client = client;
        this.proxy = client.proxy();
        this.ctx = client.context();
        this.http1 = client.http1();
        this.timer = client.timer();
        this.started = proxy.timeouts.now();
        this.takesBytes = takesBytes;
        this.original = req;
        this.decision = d;
        this.pool = pool;
        this.replay = Upstreams.isRetryable(req) ? new ReplayBuffer() : null;
        this.head = proxy.headers.toUpstream(req, d, http1 == null);
    }

    /** Moves to {@code next}, or fails loudly when the move is not a legal one. */
    private void moveTo(Phase next) {
        if (!phase.mayMoveTo(next)) {
            throw new IllegalStateException("exchange of " + original.method() + " " + original.uri() + ": "
                                            + phase + " -> " + next + " (expected: a legal move)");
        }
        phase = next;
    }

    /** Whether the request's last piece has arrived: what the client sends next is another request. */
    boolean requestEnded() {
        return requestEnded;
    }

    /** Whether the upstream takes the request body now: connected, and keeping up. */
    boolean upstreamWritable() {
        return link != null && link.channel().isWritable();
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
            client.updateReading();
            connecting.addListener(f -> {
                client.notReadingClient();
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
        if (replay != null && !replay.isEmpty()) {
            replay.replay(this::sendUp);
        } else if (replay != null && requestEnded) { // a request without body, whose end is not kept
            sendUp(LastHttpContent.EMPTY_LAST_CONTENT);
        } else if (pending != null) {
            HttpContent c;
            while ((c = pending.poll()) != null) {
                sendUp(c);
            }
        }
        if (!client.readingClient()) { // else the end of the client's read flushes, with the request's end if in it
            flushUp();
        }
        if (!ctx.channel().config().isAutoRead()) {
            client.updateReading();
        }
    }

    /** A piece of the request body, whose ownership passes: kept for a replay, sent, or held until connected. */
    void requestContent(HttpContent c) {
        boolean last = c instanceof LastHttpContent;
        requestEnded = last;
        if (replay != null && !replay.fits(c)) {
            stopKeeping();
        }
        if (replay != null && c == LastHttpContent.EMPTY_LAST_CONTENT && replay.isEmpty()) {
            // a request without body (most are): nothing to keep, a replay ends it the same way
            if (link != null) {
                sendUp(c);
            }
        } else if (replay != null) {
            replay.keep(c);
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
            client.updateReading();
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
        if (unflushed && link != null) {
            unflushed = false;
            link.channel().flush();
        }
    }

    /** The client takes what is relayed ({@code writable}) or not: the upstream is read only while it does. */
    void clientWritable(boolean writable) {
        if (link != null) {
            link.channel().config().setAutoRead(writable);
        }
    }

    /** The body outgrew the replay buffer: what was kept is sent (or goes out once connected), not kept. */
    private void stopKeeping() {
        ReplayBuffer kept = replay;
        replay = null;
        if (link != null) {
            kept.release(); // sent already, as duplicates
        } else if (!kept.isEmpty()) {
            kept.handOver(pendingBody()::add);
        }
    }

    private ArrayDeque<HttpContent> pendingBody() {
        if (pending == null) {
            pending = new ArrayDeque<>(4);
        }
        return pending;
    }

    private boolean mayRetry() {
        return replay != null && attempts < proxy.maxAttempts;
    }

    @Override
    public void responseHead(HttpResponse res) {
        client.notReadingClient();
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
        answerStarted(code);
        proxy.headers.toClient(res.headers(), decision, endpoint.http2());
        if (http1 != null) {
            http1.frame(res, code, original.method());
        }
        if (whole) { // kept whole, so that an HTTP/2 client gets headers that end the stream (gRPC's errors)
            last(res);
        } else {
            ctx.write(res, ctx.voidPromise());
        }
    }

    @Override
    public void responseContent(HttpContent c) {
        client.notReadingClient();
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
        if (last) {
            last(c);
            return;
        }
        armIdleTimeout();
        ctx.write(c, ctx.voidPromise());
        holdUpstreamWhileClientFull();
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
        return proxy.headers.answerStamps;
    }

    /**
     * A final answer's head as it came, less its hop-by-hop lines (see {@link RawAnswers}): stamped and written
     * past the codec. The answers that may be retried never come this way.
     */
    @Override
    public void rawHead(ByteBuf head, int code, boolean keepAlive, boolean last) {
        client.notReadingClient();
        endpoint.report(true);
        responseKeepAlive = keepAlive;
        answerStarted(code);
        proxy.headers.toClient(head, decision);
        http1.answeredAsBytes();
        if (last) {
            lastBytes(head);
        } else {
            http1.writeBytes(head);
        }
    }

    @Override
    public void rawBody(ByteBuf body, boolean last) {
        client.notReadingClient();
        if (last) {
            lastBytes(body);
            return;
        }
        armIdleTimeout();
        http1.writeBytes(body);
        holdUpstreamWhileClientFull();
    }

    /** The final answer's head goes to the client: from now on the idle timeout runs, the longest pause. */
    private void answerStarted(int code) {
        status = code;
        moveTo(Phase.STREAMING);
        armIdleTimeout();
    }

    private void armIdleTimeout() {
        timer.arm(proxy.timeouts.now() + proxy.idleTimeoutNanos);
    }

    /** The upstream is not read while the client does not take what was relayed: no answer is buffered for it. */
    private void holdUpstreamWhileClientFull() {
        if (!ctx.channel().isWritable()) {
            link.channel().config().setAutoRead(false);
        }
    }

    /** The end of an answer taken as bytes, which ends the exchange; the client keeps its connection. */
    private void lastBytes(ByteBuf bytes) {
        endAttempt();
        http1.writeLastBytes(bytes);
        finish();
    }

    /** Relays the end of the response, which ends the exchange. */
    private void last(Object msg) {
        endAttempt();
        client.writeLast(msg);
        finish();
    }

    private void retry() {
        endAttempt();
        attempt();
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
        client.updateReading();
    }

    @Override
    public void failed(Throwable cause) {
        client.notReadingClient();
        fail(cause, false);
    }

    /** The attempt broke ({@code cause}) or the exchange's deadline passed: retried, answered, or cut. */
    private void fail(Throwable cause, boolean timedOut) {
        if (phase == Phase.DONE) {
            return;
        }
        endpoint.report(false);
        abortAttempt();
        boolean answerStarted = phase == Phase.STREAMING;
        if (!answerStarted && !timedOut && mayRetry()) {
            attempt();
            return;
        }
        if (!answerStarted) {
            String upstream = "upstream " + endpoint + " of region " + decision.target();
            ProblemDetail p = timedOut
                    ? ProblemDetail.of(504, "upstream-timeout", upstream + " did not answer in time")
                    : ProblemDetail.of(502, "upstream-failed", upstream + " failed: " + ProblemAnswers.reason(cause));
            status = p.status();
            client.answer(p);
            finish();
        } else {
            finish();
            ctx.close(); // the client must not take a cut-off body for a whole one
        }
    }

    /** The exchange's deadline passed: 504 before its answer started, cut after. */
    void timedOut() {
        fail(null, true);
    }

    /** The client went away: the upstream connection cannot be reused mid-exchange. */
    void abandon() {
        abortAttempt();
        status = 499; // nginx's "client closed request"
        finish();
    }

    private void abortAttempt() {
        if (link != null) {
            link.abort();
            link = null;
        }
    }

    private void finish() {
        moveTo(Phase.DONE);
        timer.disarm();
        if (replay != null) {
            replay.release();
        }
        if (pending != null) {
            pending.forEach(HttpContent::release);
            pending = null;
        }
        client.record(original, decision, status, started);
        proxy.inFlight.decrementAndGet();
        client.exchangeEnded();
    }
}
