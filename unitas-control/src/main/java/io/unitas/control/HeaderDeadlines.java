package io.unitas.control;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * A deadline for a connection's request headers, which the server's idle timeout does not give: it is reset by
 * every byte read, so a client trickling a header line every few seconds would hold its connection (and its
 * buffered headers) for ever. A connection must complete a request's headers within the header timeout of
 * connecting, and within the idle timeout plus the header timeout of its last response; while a request is in
 * flight (a watch, a body being sent under the request timeout) it has no header deadline. A connection that
 * misses it is closed.
 */
final class HeaderDeadlines {

    private static final Logger log = LoggerFactory.getLogger(HeaderDeadlines.class);

    /** One connection: its requests in flight and its deadline, touched under its own lock. */
    private static final class Connection {
        final Channel channel;
        int inFlight;
        ScheduledFuture<?> deadline;

        Connection(Channel channel) {
            this.channel = channel;
        }
    }

    private final long firstNanos;
    private final long nextNanos;
    private final ConcurrentMap<SocketAddress, Connection> open = new ConcurrentHashMap<>();
    private final LongAdder closed = new LongAdder();

    HeaderDeadlines(Duration headerTimeout, Duration idleTimeout) {
        this.firstNanos = headerTimeout.toNanos();
        this.nextNanos = headerTimeout.plus(idleTimeout).toNanos();
    }

    /** Arms the first deadline of every accepted connection (for the server's child pipeline). */
    Consumer<ChannelPipeline> pipeline() {
        return pipeline -> pipeline.addFirst("unitas-header-deadline", new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                Channel channel = ctx.channel();
                SocketAddress address = channel.remoteAddress();
                if (address == null) {
                    return;
                }
                Connection c = new Connection(channel);
                open.put(address, c);
                arm(c, firstNanos);
                channel.closeFuture().addListener(f -> {
                    open.remove(address, c);
                    synchronized (c) {
                        if (c.deadline != null) {
                            c.deadline.cancel(false);
                        }
                    }
                });
            }
        });
    }

    /** Lifts the deadline while a request is in flight (a decorator of every service). */
    HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req) throws Exception {
        Connection c = open.get(ctx.remoteAddress());
        if (c != null) {
            synchronized (c) {
                c.inFlight++;
                if (c.deadline != null) {
                    c.deadline.cancel(false);
                    c.deadline = null;
                }
            }
            ctx.log().whenComplete().thenRun(() -> {
                synchronized (c) {
                    if (--c.inFlight == 0) {
                        arm(c, nextNanos);
                    }
                }
            });
        }
        return delegate.serve(ctx, req);
    }

    /** Connections closed for missing their header deadline since start. */
    long closed() {
        return closed.sum();
    }

    private void arm(Connection c, long nanos) {
        synchronized (c) {
            if (c.deadline != null) {
                c.deadline.cancel(false);
            }
            c.deadline = c.channel.eventLoop().schedule(() -> {
                closed.increment();
                log.debug("{}: no complete request headers in time; closing ({} so far)", c.channel.remoteAddress(),
                          closed.sum());
                c.channel.close();
            }, nanos, TimeUnit.NANOSECONDS);
        }
    }
}
