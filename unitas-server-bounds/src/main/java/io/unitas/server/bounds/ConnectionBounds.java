package io.unitas.server.bounds;

import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.logging.RequestLogProperty;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;

/**
 * A server reads a connection only while it can take the answers. A client that sends requests and reads nothing
 * would otherwise have them decoded and answered into memory: 6.1 MB of anonymous pipelined state reads grew the
 * control plane's heap by 531 MB; 6 MB of home reads grew the home-read server's by 75 MB over HTTP/1.1 and 148 MB as
 * HTTP/2 streams; 20 MB of scrapes the health agent's by 91 MB. A read is held back while the connection's unsent
 * bytes are past Netty's high-water mark, and on HTTP/1.1 also while it has too many requests unanswered:
 * {@link #IN_FLIGHT}, or {@link #ANONYMOUS_IN_FLIGHT} until one of its requests was accepted (answered other than
 * 401), so an unauthenticated connection has the smallest bound. HTTP/2 is bounded by its stream cap
 * ({@link #MAX_STREAMS}, where the server sets it) instead of requests in flight: a response held by the client's
 * flow-control window needs the client's WINDOW_UPDATE read, so holding reads for it could stall a client that does
 * read. Held requests wait in the client's socket buffers, not in the heap.
 *
 * <p>Wiring: {@code childChannelPipelineCustomizer(bounds.pipeline())} puts each connection's bound first in its
 * pipeline, so that it sees every read on its way to the socket, and {@code decorator(bounds::serve)} counts each
 * request while it is unanswered. A bound's state is touched on its connection's event loop only.
 */
public final class ConnectionBounds {

    /** HTTP/2 streams open at once on one connection, for a server that caps them. */
    public static final int MAX_STREAMS = 128;

    /** HTTP/1.1 requests unanswered on one connection once it has been accepted; a client has one at a time. */
    public static final int IN_FLIGHT = 16;

    /** HTTP/1.1 requests unanswered on a connection none of whose requests was accepted yet. */
    public static final int ANONYMOUS_IN_FLIGHT = 1;

    /**
     * The kernel's receive buffer of a connection, for a server whose requests are small. Left to autotuning it grows
     * to {@code tcp_rmem}'s largest (32 MB on some hosts) while the server reads fast: then a client that the server
     * stopped reading can still put that much into it. The send buffer stays as tuned.
     */
    public static final int RECEIVE_BUFFER = 64 * 1024;

    private static final String NAME = "unitas-connection-bounds";

    private final ConcurrentMap<SocketAddress, Bound> open = new ConcurrentHashMap<>();

    /** Adds the bound of every accepted connection (for the server's child pipeline). */
    public Consumer<ChannelPipeline> pipeline() {
        return pipeline -> pipeline.addFirst(NAME, new Bound());
    }

    /**
     * Counts the request while it is unanswered (a decorator of every service): from when it has arrived whole
     * (holding reads at its headers would starve its own body; the server's request length bounds it) until its
     * answer is sent.
     */
    public HttpResponse serve(HttpService delegate, ServiceRequestContext ctx, HttpRequest req) throws Exception {
        Bound bound = open.get(ctx.remoteAddress());
        if (bound != null && !ctx.sessionProtocol().isMultiplex()) {
            if (req.isOpen()) { // a body still to come: counted once it is in
                ctx.log().whenRequestComplete().thenAccept(request -> bound.started(ctx));
            } else {
                bound.started(ctx);
            }
            // accepted as its headers go out: a long answer (a watch) must not keep its connection anonymous
            ctx.log().whenAvailable(RequestLogProperty.RESPONSE_HEADERS).thenAccept(
                    log -> bound.answered(log.responseHeaders().status() != HttpStatus.UNAUTHORIZED));
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

        void started(ServiceRequestContext ctx) {
            onLoop(() -> {
                inFlight++;
                if (!allowed()) {
                    hold();
                }
            });
            ctx.log().whenComplete().thenAccept(log -> finished());
        }

        void answered(boolean acceptedNow) {
            if (acceptedNow) {
                onLoop(() -> {
                    accepted = true;
                    releaseIfAllowed();
                });
            }
        }

        void finished() {
            onLoop(() -> {
                inFlight--;
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
