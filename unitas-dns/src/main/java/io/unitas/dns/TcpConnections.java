package io.unitas.dns;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Every DNS-over-TCP connection of one server and its bounds: at most {@code maxConnections} open, each closed when it
 * has not completed a query within the idle timeout (measured on an injected ticker and checked every
 * {@link #tick()}, so trickling bytes does not keep a connection alive), and none read further while its unsent
 * answers are past the channel's high-water mark: queries are answered as they are read, and reading stops until the
 * client has read enough of its answers (RFC 7766 §6.2.1.1 lets a server pace pipelined queries). What a connection
 * holds is thus at most one read of queries and {@link DnsConfig.Tcp#MAX_UNSENT_BYTES} of answers plus one answer.
 */
final class TcpConnections {

    private static final Logger log = LoggerFactory.getLogger(TcpConnections.class);

    private final DnsConfig.Tcp limits;
    private final LongSupplier ticker;
    private final long idleNanos;
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger count = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder paused = new LongAdder();

    TcpConnections(DnsConfig.Tcp limits, LongSupplier ticker) {
        this.limits = limits;
        this.ticker = ticker;
        this.idleNanos = limits.idleTimeout().toNanos();
    }

    /** How often deadlines are checked: a quarter of the idle timeout, so a connection outlives it by at most that. */
    long tick() {
        return Math.max(idleNanos / 4, 1_000_000);
    }

    /** The handler of one new connection. */
    ChannelInboundHandlerAdapter connection(Responder responder) {
        return new Connection(responder);
    }

    /** Closes every connection whose deadline has passed; the event loops call it every {@link #tick()}. */
    void checkDeadlines() {
        long now = ticker.getAsLong();
        for (Connection c : open) {
            if (now - c.deadline >= 0 && open.remove(c)) { // removed once: a close in flight is not counted again
                expired.increment();
                c.channel.close();
            }
        }
    }

    /** Connections open now. */
    int connections() {
        return count.get();
    }

    /** Connections closed as accepted because {@code maxConnections} were open. */
    long refused() {
        return refused.sum();
    }

    /** Connections closed because they completed no query within the idle timeout. */
    long expired() {
        return expired.sum();
    }

    /** Times a connection was stopped being read because its client was not reading its answers. */
    long paused() {
        return paused.sum();
    }

    /** Bytes every connection holds: queries read and not yet answered, and answers not yet sent. */
    long outstandingBytes() {
        long sum = 0;
        for (Connection c : open) {
            sum += c.buffered;
            Channel ch = c.channel;
            ChannelOutboundBuffer out = ch == null ? null : ch.unsafe().outboundBuffer();
            if (out != null) {
                sum += out.totalPendingWriteBytes();
            }
        }
        return sum;
    }

    /** One connection: its queries framed by their two-byte length (RFC 1035 §4.2.2), answered in order. */
    private final class Connection extends ChannelInboundHandlerAdapter {
        private final Responder responder;
        private ByteBuf in;
        private volatile Channel channel;
        private volatile long deadline;
        private volatile int buffered;
        private boolean counted;

        Connection(Responder responder) {
            this.responder = responder;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (count.incrementAndGet() > limits.maxConnections()) {
                count.decrementAndGet();
                refused.increment();
                ctx.close();
                return;
            }
            counted = true;
            deadline = ticker.getAsLong() + idleNanos;
            channel = ctx.channel();
            open.add(this);
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf bytes = (ByteBuf) msg;
            if (!counted) {
                bytes.release();
                return;
            }
            in = in == null ? bytes : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), in, bytes);
            drain(ctx);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                drain(ctx); // the client read some answers: answer what is waiting, then read again
            }
            ctx.fireChannelWritabilityChanged();
        }

        /** Answers every whole query read while the connection stays writable; reads on only if it still is. */
        private void drain(ChannelHandlerContext ctx) {
            Channel ch = ctx.channel();
            boolean wrote = false;
            while (in != null && ch.isWritable() && in.readableBytes() >= 2) {
                int length = in.getUnsignedShort(in.readerIndex());
                if (in.readableBytes() < 2 + length) {
                    break;
                }
                ByteBuf query = in.slice(in.readerIndex() + 2, length);
                deadline = ticker.getAsLong() + idleNanos; // a whole query: the connection is in use
                ByteBuf answer = NettyDnsServer.answer(responder, query, (InetSocketAddress) ch.remoteAddress(),
                                                       false, ctx);
                in.skipBytes(2 + length);
                if (answer != null) {
                    ctx.write(answer);
                    wrote = true;
                }
            }
            if (in != null && !in.isReadable()) {
                in.release();
                in = null;
            }
            buffered = in == null ? 0 : in.readableBytes();
            if (wrote) {
                ctx.flush();
            }
            boolean writable = ch.isWritable();
            if (ch.config().isAutoRead() != writable) {
                if (!writable) {
                    paused.increment();
                }
                ch.config().setAutoRead(writable);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            release();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            release();
        }

        private void release() {
            if (in != null) {
                in.release();
                in = null;
            }
            buffered = 0;
            if (counted) {
                counted = false;
                count.decrementAndGet();
                open.remove(this);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof Error e && !(cause instanceof StackOverflowError)) {
                log.error("tcp: closing a connection on {}", e.toString());
            }
            ctx.close(); // a reset, or a failure of this connection's own: this connection only
        }
    }
}
