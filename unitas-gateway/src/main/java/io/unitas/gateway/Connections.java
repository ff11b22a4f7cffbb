package io.unitas.gateway;

import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

/**
 * Keep-alive HTTP/1.1 connections to upstream endpoints, pooled per event loop as nginx and Envoy pool them per
 * worker: an exchange's upstream connection lives on the loop that took its request, so neither side ever crosses
 * threads and no pool needs a lock. Every method but {@link #probe} runs on the loop it names.
 */
final class Connections {

    /** A pooled connection unused this long is closed before the upstream's own idle timeout (often 60 s) races it. */
    private static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int MAX_IDLE_PER_ENDPOINT = 512;
    private static final int MAX_HEADER_BYTES = 64 * 1024;

    /**
     * Upstream answers are parsed without validating each header: the gateway relays them as they are, and a line
     * break cannot survive the parse anyway.
     */
    private static final HttpDecoderConfig RESPONSES = new HttpDecoderConfig()
            .setMaxHeaderSize(MAX_HEADER_BYTES)
            .setMaxChunkSize(16 * 1024)
            .setHeadersFactory(DefaultHttpHeadersFactory.headersFactory().withValidation(false));

    private final Map<EventExecutor, LoopPool> pools = new IdentityHashMap<>();
    private final Bootstrap bootstrap;

    Connections(EventLoopGroup group, Transport transport, Duration connectTimeout) {
        this.bootstrap = new Bootstrap().channel(transport.socketChannel())
                                        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                                                (int) connectTimeout.toMillis())
                                        .option(ChannelOption.TCP_NODELAY, true)
                                        .option(ChannelOption.SO_KEEPALIVE, true);
        for (EventExecutor loop : group) {
            pools.put(loop, new LoopPool());
        }
    }

    /** What a connection tells the exchange it serves. */
    interface Listener {
        void responseHead(HttpResponse head);

        /** A piece of the response body; the last one is a {@code LastHttpContent}. Ownership passes. */
        void responseContent(HttpContent content);

        /** The end of one read from the socket: time to flush what was relayed. */
        void readComplete();

        void writable();

        /** The connection broke or closed before the exchange ended. */
        void failed(Throwable cause);
    }

    /**
     * A connection to {@code endpoint} on {@code loop}: the most recently used idle one, or a new one. Idle ones
     * past {@link #MAX_IDLE_NANOS} are closed on the way rather than risked.
     */
    Future<Link> acquire(EventLoop loop, Upstreams.Endpoint endpoint) {
        LoopPool pool = pools.get(loop);
        ArrayDeque<Link> idle = pool.idle.get(endpoint);
        if (idle != null) {
            long now = System.nanoTime();
            Link link;
            while ((link = idle.pollLast()) != null) {
                if (link.channel.isActive() && now - link.idleSince <= MAX_IDLE_NANOS) {
                    return loop.newSucceededFuture(link);
                }
                link.channel.close();
            }
        }
        Promise<Link> promise = loop.newPromise();
        Link link = new Link(endpoint, pool);
        connect(loop, endpoint, link).addListener(f -> {
            if (f.isSuccess()) {
                promise.setSuccess(link);
            } else {
                promise.setFailure(f.cause());
            }
        });
        return promise;
    }

    /**
     * One answer to {@code GET path} on a fresh connection to {@code endpoint}: its status code, or a failure when
     * there is none within {@code timeout}.
     */
    Future<Integer> probe(EventLoop loop, Upstreams.Endpoint endpoint, String path, Duration timeout) {
        Promise<Integer> promise = loop.newPromise();
        ChannelFuture connecting = connect(loop, endpoint, new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpResponse res) {
                    promise.trySuccess(res.status().code());
                    ctx.close();
                }
                ReferenceCountUtil.release(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                promise.tryFailure(new ClosedChannelException());
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                promise.tryFailure(cause);
                ctx.close();
            }
        });
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                promise.tryFailure(f.cause());
                return;
            }
            DefaultFullHttpRequest get = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            get.headers().set(HttpHeaderNames.HOST, endpoint.authority())
                         .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
                         .set(HttpHeaderNames.USER_AGENT, "unitas-gateway-health-check");
            connecting.channel().writeAndFlush(get);
        });
        loop.schedule(() -> {
            if (promise.tryFailure(new TimeoutException("no answer within " + timeout.toMillis() + " ms"))) {
                connecting.channel().close();
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        return promise;
    }

    /** A new HTTP/1.1 client connection on {@code loop}, its responses going to {@code handler}. */
    private ChannelFuture connect(EventLoop loop, Upstreams.Endpoint endpoint, ChannelHandler handler) {
        return bootstrap.clone(loop).handler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new HttpClientCodec(RESPONSES, false, false), handler);
            }
        }).connect(endpoint.address());
    }

    /** One loop's idle connections, by endpoint; touched only from that loop. */
    private static final class LoopPool {
        final Map<Upstreams.Endpoint, ArrayDeque<Link>> idle = new HashMap<>();
    }

    /**
     * One upstream connection: relays what it reads to the exchange it is bound to, and goes back to its loop's
     * pool when that exchange ends cleanly.
     */
    static final class Link extends ChannelInboundHandlerAdapter {

        final Upstreams.Endpoint endpoint;
        private final LoopPool pool;
        private Channel channel;
        private Listener listener;
        private Throwable failure;
        private long idleSince;

        Link(Upstreams.Endpoint endpoint, LoopPool pool) {
            this.endpoint = endpoint;
            this.pool = pool;
        }

        Channel channel() {
            return channel;
        }

        void bind(Listener listener) {
            this.listener = listener;
        }

        /** Back to the pool for the next exchange; closed instead when the pool for its endpoint is full. */
        void release() {
            listener = null;
            if (!channel.isActive()) {
                return;
            }
            channel.config().setAutoRead(true);
            ArrayDeque<Link> idle = pool.idle.computeIfAbsent(endpoint, e -> new ArrayDeque<>());
            long now = System.nanoTime();
            Link oldest = idle.peekFirst();
            if (oldest != null && now - oldest.idleSince > MAX_IDLE_NANOS || idle.size() >= MAX_IDLE_PER_ENDPOINT) {
                idle.pollFirst().channel.close();
            }
            idleSince = now;
            idle.addLast(this);
        }

        /** Closes the connection without telling its exchange, which has given up on it. */
        void abort() {
            listener = null;
            channel.close();
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Listener l = listener;
            if (l == null) { // an idle connection has nothing to say
                ReferenceCountUtil.release(msg);
                ctx.close();
                return;
            }
            if (msg instanceof HttpResponse head) {
                l.responseHead(head);
            }
            if (msg instanceof HttpContent content) {
                l.responseContent(content);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (listener != null) {
                listener.readComplete();
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (listener != null && ctx.channel().isWritable()) {
                listener.writable();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure = cause;
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            Listener l = listener;
            listener = null;
            if (l != null) {
                l.failed(failure != null ? failure : new ClosedChannelException());
            } else {
                ArrayDeque<Link> idle = pool.idle.get(endpoint);
                if (idle != null) {
                    idle.remove(this);
                }
            }
        }
    }
}
