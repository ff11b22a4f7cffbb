package io.unitas.data.remote;

import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;

/**
 * The home-read server reads a connection only while it can take the answers. A client that sends requests and reads
 * nothing would otherwise have them decoded and answered into memory (6 MB of such reads grew the heap by 75 MB over
 * HTTP/1.1, and by 148 MB as HTTP/2 streams). A read is held back while the connection's unsent bytes are past
 * Netty's high-water mark, and on HTTP/1.1 also while it has too many requests unanswered: {@link #IN_FLIGHT}, or
 * {@link #ANONYMOUS_IN_FLIGHT} until one of its requests was accepted (answered other than 401). HTTP/2 is bounded by
 * its stream cap ({@link #MAX_STREAMS}) instead of requests in flight: a response held by the client's flow-control
 * window needs the client's WINDOW_UPDATE read, so holding reads for it could stall a client that does read.
 * Placed first in each connection's pipeline; its state is touched on the connection's event loop only.
 */
final class ConnectionBounds {

    /** Connections at once; more are closed as they are accepted. */
    static final int MAX_CONNECTIONS = 4_096;

    /**
     * The kernel's receive buffer of a connection. Left to autotuning it grows to {@code tcp_rmem}'s largest (32 MB
     * on some hosts) while the server reads fast: then a client that the server stopped reading can still put that
     * much into it. Requests to this server are small; its answers keep the kernel's send buffer as tuned.
     */
    static final int RECEIVE_BUFFER = 64 * 1024;

    /** HTTP/2 streams open at once on one connection; more are refused (RST_STREAM). */
    static final int MAX_STREAMS = 128;

    /** HTTP/1.1 requests unanswered on one connection once it has been accepted; a client has one at a time. */
    static final int IN_FLIGHT = 16;

    /** HTTP/1.1 requests unanswered on a connection none of whose requests was accepted yet. */
    static final int ANONYMOUS_IN_FLIGHT = 1;

    private static final String NAME = "unitas-connection-bounds";

    private final ConcurrentMap<SocketAddress, Bound> open = new ConcurrentHashMap<>();

    /** Adds the bound of every accepted connection (for the server's child pipeline). */
    Consumer<ChannelPipeline> pipeline() {
        return pipeline -> pipeline.addFirst(NAME, new Bound());
    }

    /** Counts the request while it is unanswered (a decorator of every service). */
    HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req) throws Exception {
        Bound bound = open.get(ctx.remoteAddress());
        if (bound != null && !ctx.sessionProtocol().isMultiplex()) {
            bound.started();
            ctx.log().whenComplete().thenAccept(log -> bound.finished(
                    log.responseHeaders().status() != HttpStatus.UNAUTHORIZED));
        }
        return delegate.serve(ctx, req);
    }

    /** One connection's bound. */
    private final class Bound extends ChannelDuplexHandler {

        private Channel channel;
        private int inFlight;
        private boolean accepted;
        private boolean held;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            SocketAddress address = channel.remoteAddress();
            if (address != null) {
                open.put(address, this);
                channel.closeFuture().addListener(f -> open.remove(address, this));
            }
        }

        void started() {
            onLoop(() -> {
                inFlight++;
                if (!allowed()) {
                    hold();
                }
            });
        }

        void finished(boolean acceptedNow) {
            onLoop(() -> {
                inFlight--;
                accepted |= acceptedNow;
                releaseIfAllowed();
            });
        }

        @Override
        public void read(ChannelHandlerContext ctx) {
            if (allowed()) {
                ctx.read();
            } else {
                hold();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!allowed()) {
                hold(); // what this read brought is decoded, but the socket is not read again
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            releaseIfAllowed();
            ctx.fireChannelWritabilityChanged();
        }

        private boolean allowed() {
            return inFlight < (accepted ? IN_FLIGHT : ANONYMOUS_IN_FLIGHT) && channel.isWritable();
        }

        /** With auto-read on, the transport reads whenever data arrives: a held read must turn it off too. */
        private void hold() {
            if (!held) {
                held = true;
                channel.config().setAutoRead(false);
            }
        }

        private void releaseIfAllowed() {
            if (held && allowed()) {
                held = false;
                channel.config().setAutoRead(true); // asks for a read, too
            }
        }

        private void onLoop(Runnable task) {
            if (channel.eventLoop().inEventLoop()) {
                task.run();
            } else {
                channel.eventLoop().execute(task);
            }
        }
    }
}
