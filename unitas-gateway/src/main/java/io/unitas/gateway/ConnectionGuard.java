package io.unitas.gateway;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The first handler of every client connection, before TLS and HTTP: it closes a connection that takes longer than
 * the header-read timeout to send a whole request head (slowloris; a TLS handshake counts as part of the first head),
 * or that has had no request in progress for the idle timeout (nginx's {@code client_header_timeout} and
 * {@code keepalive_timeout}). The proxy handlers of the connection, or of its HTTP/2 streams, tell it when a request
 * head has arrived and when its answer is done; it sees bytes arrive.
 */
final class ConnectionGuard extends ChannelInboundHandlerAdapter {

    /** What the connection is waiting for, which decides its deadline. */
    enum Phase {
        /** Bytes of a request head (or a TLS handshake) are on their way: the header-read timeout runs. */
        READING_HEAD,
        /** At least one request is being answered: the exchanges' own timeouts apply, none of the connection's. */
        BUSY,
        /** Nothing in progress on a kept-alive connection: the idle timeout runs until the next byte. */
        IDLE
    }

    private final Timeouts timeouts;
    private final ClientLimits limits;
    private Timeouts.Entry entry;
    private Phase phase = Phase.READING_HEAD;
    /** Requests being answered: one at a time over HTTP/1.1, one per open stream over HTTP/2. */
    private int busy;

    ConnectionGuard(Timeouts timeouts, ClientLimits limits) {
        this.timeouts = timeouts;
        this.limits = limits;
    }

    Phase phase() {
        return phase;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        entry = timeouts.entry(ctx.executor(), now -> expired(ctx));
        entry.arm(timeouts.now() + limits.headerReadTimeoutNanos());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (phase == Phase.IDLE) { // the first byte of the next request starts its header-read timeout
            phase = Phase.READING_HEAD;
            entry.arm(timeouts.now() + limits.headerReadTimeoutNanos());
        }
        ctx.fireChannelRead(msg);
    }

    /** A request head arrived whole: until its answer is done, the connection is not timed out. */
    void requestStarted() {
        busy++;
        phase = Phase.BUSY;
        entry.disarm();
    }

    /** A request's answer is done; once none is left, the connection idles. */
    void requestEnded() {
        if (busy > 0 && --busy == 0) {
            phase = Phase.IDLE;
            entry.arm(timeouts.now() + limits.idleTimeoutNanos());
        }
    }

    private void expired(ChannelHandlerContext ctx) {
        limits.timedOut(phase);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        entry.remove();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        entry.remove();
    }
}
