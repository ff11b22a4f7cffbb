package io.unitas.gateway;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Exception;

/**
 * The last handler of a client's HTTP/2 connection: what its codec gives up on (too many resets, a header block
 * of endless CONTINUATION frames, a broken frame) ends the connection, is counted, and is logged as one line at
 * most every {@link #LOG_EVERY_SECONDS} s with how many followed, instead of a stack trace per attacking connection.
 */
@ChannelHandler.Sharable
final class ConnectionErrors extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionErrors.class);
    static final long LOG_EVERY_SECONDS = 10;

    private final LongSupplier ticker;
    private final LongAdder errors = new LongAdder();
    private final AtomicLong nextLog = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong unlogged = new AtomicLong();

    ConnectionErrors(LongSupplier ticker) {
        this.ticker = ticker;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        errors.increment();
        Http2Exception h2 = http2(cause);
        if (h2 == null) {
            ctx.close();
        } // else the codec has sent its GOAWAY and closes the connection once it is written
        long now = ticker.getAsLong();
        long next = nextLog.get();
        if (next != Long.MIN_VALUE && now - next < 0
            || !nextLog.compareAndSet(next, now + TimeUnit.SECONDS.toNanos(LOG_EVERY_SECONDS))) {
            unlogged.incrementAndGet();
            return;
        }
        long more = unlogged.getAndSet(0);
        LOG.warn("gateway: closed an HTTP/2 connection from {}: {}{}", ctx.channel().remoteAddress(),
                 h2 != null ? h2.error() + ": " + h2.getMessage()
                            : cause.getClass().getSimpleName() + ": " + cause.getMessage(),
                 more == 0 ? "" : " (" + more + " more since the last such line)");
    }

    private static Http2Exception http2(Throwable cause) {
        return cause instanceof Http2Exception e ? e : cause.getCause() instanceof Http2Exception e ? e : null;
    }

    /** Connections ended by an error of their own, since start. */
    long errors() {
        return errors.sum();
    }
}
