package io.unitas.gateway;

import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

/**
 * Connections to upstream endpoints, pooled per event loop as nginx and Envoy pool them per worker: an exchange's
 * upstream connection lives on the loop that took its request, so neither side ever crosses threads and no pool
 * needs a lock. An HTTP/1.1 endpoint gets keep-alive connections, one exchange at a time each; an HTTP/2 one
 * connection per loop, each exchange a stream of it. Every method but {@link #probe} runs on the loop it names.
 */
final class Connections {

    /** A pooled connection unused this long is closed before the upstream's own idle timeout (often 60 s) races it. */
    private static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int MAX_IDLE_PER_ENDPOINT = 512;
    private static final int MAX_HEADER_BYTES = 64 * 1024;
    /** No server push: a proxy relays answers to requests it made. */
    private static final Http2Settings H2_SETTINGS = Http2Settings.defaultSettings().pushEnabled(false)
                                                                  .maxHeaderListSize(MAX_HEADER_BYTES);

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
    /**
     * Upstream names are resolved without blocking the event loop (the JDK's resolver would), honouring their
     * records' TTLs, from {@code /etc/hosts} and the servers in {@code /etc/resolv.conf}.
     */
    private final DnsAddressResolverGroup resolver;
    /** Nanoseconds, for how long pooled connections have been idle. */
    private final LongSupplier ticker;

    Connections(EventLoopGroup group, Transport transport, Duration connectTimeout, LongSupplier ticker) {
        this.ticker = ticker;
        this.resolver = new DnsAddressResolverGroup(new DnsNameResolverBuilder()
                                                            .datagramChannelType(transport.datagramChannel()));
        this.bootstrap = transport.connecting(new Bootstrap()).resolver(resolver)
                                        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                                                (int) connectTimeout.toMillis())
                                        .option(ChannelOption.TCP_NODELAY, true)
                                        .option(ChannelOption.SO_KEEPALIVE, true);
        for (EventExecutor loop : group) {
            pools.put(loop, new LoopPool());
        }
    }

    /** Closes the resolver; the connections close with their event loops. */
    void close() {
        resolver.close();
    }

    /** What a connection tells the exchange it serves. */
    interface Listener {
        /** The response's head; a {@code FullHttpResponse} (HTTP/2 headers that end the stream) is all of it. */
        void responseHead(HttpResponse head);

        /** A piece of the response body; the last one is a {@code LastHttpContent}. Ownership passes. */
        void responseContent(HttpContent content);

        /** The end of one read from the socket: time to flush what was relayed. */
        void readComplete();

        void writable();

        /** The connection broke or closed before the exchange ended. */
        void failed(Throwable cause);

        /**
         * Whether the answer may come as bytes ({@link #rawHead}, {@link #rawBody}; see {@link RawAnswers}) rather
         * than parsed; it comes parsed whenever {@link RawAnswers} does not take it as it is.
         */
        default boolean takesBytes() {
            return false;
        }

        /** Whether the request is a {@code HEAD}, whose answer has no body whatever its head says. */
        default boolean asksHead() {
            return false;
        }

        /** Header names the exchange stamps on the answer: left out of a head that comes as bytes. */
        default AsciiString[] stampNames() {
            return NO_NAMES;
        }

        /** See {@link RawAnswers.Sink#rawHead}. */
        default void rawHead(ByteBuf head, int status, boolean keepAlive, boolean last) {
            throw new UnsupportedOperationException("answers are taken parsed");
        }

        /** See {@link RawAnswers.Sink#rawBody}. */
        default void rawBody(ByteBuf body, boolean last) {
            throw new UnsupportedOperationException("answers are taken parsed");
        }
    }

    private static final AsciiString[] NO_NAMES = {};

    /**
     * A link to {@code endpoint} on {@code loop} for one exchange: an HTTP/2 stream, or an HTTP/1.1 connection,
     * the most recently used idle one (see {@link #pooled}) or a new one.
     */
    Future<Link> acquire(EventLoop loop, Upstreams.Endpoint endpoint) {
        LoopPool pool = pools.get(loop);
        if (endpoint.http2()) {
            return stream(loop, pool, endpoint);
        }
        Link idle = pooled(pool, endpoint);
        if (idle != null) {
            return loop.newSucceededFuture(idle);
        }
        Link link = new Link(endpoint, pool, ticker);
        link.raw = new RawAnswers(link);
        link.answers = new Answers();
        return linked(loop.newPromise(), link,
                      connect(loop, endpoint, new HttpRequestEncoder(), link.raw, link.answers, link));
    }

    /**
     * The most recently used idle HTTP/1.1 connection to {@code endpoint} on {@code loop}, or {@code null} when there
     * is none (or the endpoint speaks HTTP/2): the common case of {@link #acquire}, without a future. Idle ones past
     * {@link #MAX_IDLE_NANOS} are closed on the way rather than risked.
     */
    Link pooled(EventLoop loop, Upstreams.Endpoint endpoint) {
        return endpoint.http2() ? null : pooled(pools.get(loop), endpoint);
    }

    private Link pooled(LoopPool pool, Upstreams.Endpoint endpoint) {
        ArrayDeque<Link> idle = pool.idle.get(endpoint);
        if (idle == null || idle.isEmpty()) {
            return null;
        }
        long now = ticker.getAsLong();
        Link link;
        while ((link = idle.pollLast()) != null) {
            if (link.channel.isActive() && now - link.idleSince <= MAX_IDLE_NANOS) {
                return link;
            }
            link.channel.close();
        }
        return null;
    }

    /**
     * A new stream on this loop's HTTP/2 connection to {@code endpoint}; the connection is made first when there is
     * none, or when the one there takes no more streams (it is then closed gracefully: GOAWAY, and its streams
     * run to their end).
     */
    private Future<Link> stream(EventLoop loop, LoopPool pool, Upstreams.Endpoint endpoint) {
        ChannelFuture connection = pool.h2.get(endpoint);
        if (connection == null || connection.isDone() && !takesStreams(connection.channel())) {
            if (connection != null) {
                connection.channel().close();
            }
            ChannelFuture fresh = connectH2(loop, endpoint);
            pool.h2.put(endpoint, fresh);
            fresh.channel().closeFuture().addListener(f -> pool.h2.remove(endpoint, fresh));
            connection = fresh;
        }
        Promise<Link> promise = loop.newPromise();
        ChannelFuture connected = connection;
        connected.addListener(f -> {
            if (!f.isSuccess()) {
                promise.setFailure(f.cause());
                return;
            }
            Link link = new Link(endpoint, null, ticker);
            linked(promise, link, openStream(connected.channel(), link));
        });
        return promise;
    }

    private static boolean takesStreams(Channel connection) {
        Http2FrameCodec codec = connection.pipeline().get(Http2FrameCodec.class);
        if (!connection.isActive() || codec == null) {
            return false;
        }
        Http2Connection h2 = codec.connection();
        return !h2.goAwayReceived() && h2.local().canOpenStream();
    }

    private static Future<Link> linked(Promise<Link> promise, Link link, Future<?> opening) {
        opening.addListener(f -> {
            if (f.isSuccess()) {
                promise.setSuccess(link);
            } else {
                promise.setFailure(f.cause());
            }
        });
        return promise;
    }

    /**
     * One health check of {@code endpoint} on a connection of its own: whether {@code GET check} is answered 2xx,
     * or for {@link GatewayConfig.Upstream#GRPC_HEALTH} whether the gRPC health service answers {@code SERVING};
     * a failure when there is no answer within {@code timeout}.
     */
    Future<Boolean> probe(EventLoop loop, Upstreams.Endpoint endpoint, String check, Duration timeout) {
        Promise<Boolean> verdict = loop.newPromise();
        boolean grpc = GatewayConfig.Upstream.GRPC_HEALTH.equals(check);
        HealthCheck handler = new HealthCheck(verdict, grpc);
        ChannelFuture connecting = endpoint.http2() ? connectH2(loop, endpoint)
                                                    : connectHttp1(loop, endpoint, handler);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                if (Reachability.nothingAnswered(f.cause())) {
                    endpoint.refused(); // a health check is a connection tried like any other
                }
                verdict.tryFailure(f.cause());
                return;
            }
            endpoint.connected();
            FullHttpRequest request = grpc ? HealthCheck.grpcRequest(endpoint)
                                           : HealthCheck.getRequest(endpoint, check);
            if (!endpoint.http2()) {
                connecting.channel().writeAndFlush(request);
                return;
            }
            openStream(connecting.channel(), handler).addListener(s -> {
                if (s.isSuccess()) {
                    ((Channel) s.getNow()).writeAndFlush(request);
                } else {
                    request.release();
                    verdict.tryFailure(s.cause());
                }
            });
        });
        verdict.addListener(f -> connecting.channel().close());
        loop.schedule(() -> verdict.tryFailure(new TimeoutException("no answer within " + timeout.toMillis() + " ms")),
                      timeout.toMillis(), TimeUnit.MILLISECONDS);
        return verdict;
    }

    /** A new HTTP/1.1 client connection on {@code loop} for a health check, its responses going to {@code handler}. */
    private ChannelFuture connectHttp1(EventLoop loop, Upstreams.Endpoint endpoint, ChannelHandler handler) {
        return connect(loop, endpoint, new HttpClientCodec(RESPONSES, false, false), handler);
    }

    /**
     * A new HTTP/2 connection on {@code loop} (prior knowledge in cleartext, ALPN over TLS), its streams made by
     * {@link #openStream}.
     */
    private ChannelFuture connectH2(EventLoop loop, Upstreams.Endpoint endpoint) {
        return connect(loop, endpoint, Http2FrameCodecBuilder.forClient().initialSettings(H2_SETTINGS).build(),
                       new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
    }

    /** A new connection to {@code endpoint}: its TLS handshake first where it has TLS, then {@code handlers}. */
    private ChannelFuture connect(EventLoop loop, Upstreams.Endpoint endpoint, ChannelHandler... handlers) {
        return bootstrap.clone(loop).handler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                SslHandler tls = endpoint.newTlsHandler(ch.alloc());
                if (tls != null) {
                    ch.pipeline().addLast(tls);
                }
                ch.pipeline().addLast(handlers);
            }
        }).connect(endpoint.address());
    }

    /** A new stream of {@code connection}, speaking HTTP/1.1 objects to {@code handler} as a connection would. */
    private static Future<Http2StreamChannel> openStream(Channel connection, ChannelHandler handler) {
        return new Http2StreamChannelBootstrap(connection).handler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false, false), handler);
            }
        }).open();
    }

    /**
     * The parsed answers of an HTTP/1.1 connection whose exchanges may take answers as bytes, where
     * {@link HttpClientCodec} would pair answers with the methods of the requests it encoded: an answer read as
     * bytes never reaches it, so the exchange says whether its request was a {@code HEAD}.
     */
    static final class Answers extends HttpResponseDecoder {
        /** Whether the exchange on the connection asked {@code HEAD}. */
        boolean head;

        Answers() {
            super(RESPONSES);
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpMessage msg) {
            return head && ((HttpResponse) msg).status().code() >= 200 || super.isContentAlwaysEmpty(msg);
        }

        /** Bytes read past the last answer: an upstream that said more than it was asked. */
        int buffered() {
            return actualReadableBytes();
        }
    }

    /** One loop's idle HTTP/1.1 connections and its HTTP/2 connections, by endpoint; touched only from that loop. */
    private static final class LoopPool {
        final Map<Upstreams.Endpoint, ArrayDeque<Link>> idle = new HashMap<>();
        final Map<Upstreams.Endpoint, ChannelFuture> h2 = new HashMap<>();
    }

    /**
     * One upstream HTTP/1.1 connection or HTTP/2 stream: relays what it reads to the exchange it is bound to; a
     * connection goes back to its loop's pool when that exchange ends cleanly, a stream is done.
     */
    static final class Link extends ChannelInboundHandlerAdapter implements RawAnswers.Sink {

        final Upstreams.Endpoint endpoint;
        /** {@code null} for an HTTP/2 stream, which carries one exchange. */
        private final LoopPool pool;
        private Channel channel;
        private Listener listener;
        private Throwable failure;
        private final LongSupplier ticker;
        private long idleSince;
        /** A pooled HTTP/1.1 connection's decoders; {@code null} on an HTTP/2 stream. */
        private RawAnswers raw;
        private Answers answers;

        Link(Upstreams.Endpoint endpoint, LoopPool pool, LongSupplier ticker) {
            this.endpoint = endpoint;
            this.pool = pool;
            this.ticker = ticker;
        }

        Channel channel() {
            return channel;
        }

        void bind(Listener listener) {
            this.listener = listener;
            if (raw != null) {
                raw.expect(listener.takesBytes());
                answers.head = listener.asksHead();
            }
        }

        /** Back to the pool for the next exchange; closed instead when the pool for its endpoint is full. */
        void release() {
            listener = null;
            if (pool == null || !channel.isActive() || answers != null && answers.buffered() > 0) {
                channel.close();
                return;
            }
            if (!channel.config().isAutoRead()) { // a volatile read, where setting is an atomic swap
                channel.config().setAutoRead(true);
            }
            ArrayDeque<Link> idle = pool.idle.computeIfAbsent(endpoint, e -> new ArrayDeque<>());
            long now = ticker.getAsLong();
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
            if (msg instanceof HttpResponse head) { // a FullHttpResponse (HTTP/2 headers ending the stream) is whole
                l.responseHead(head);
            } else if (msg instanceof HttpContent content) {
                l.responseContent(content);
            }
        }

        @Override
        public AsciiString[] stampNames() {
            Listener l = listener;
            return l != null ? l.stampNames() : NO_NAMES;
        }

        @Override
        public void rawHead(ByteBuf head, int status, boolean keepAlive, boolean last) {
            Listener l = listener;
            if (l == null) { // an idle connection has nothing to say
                head.release();
                channel.close();
                return;
            }
            l.rawHead(head, status, keepAlive, last);
        }

        @Override
        public void rawBody(ByteBuf body, boolean last) {
            Listener l = listener;
            if (l == null) {
                body.release();
                channel.close();
                return;
            }
            l.rawBody(body, last);
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
            } else if (pool != null) {
                ArrayDeque<Link> idle = pool.idle.get(endpoint);
                if (idle != null) {
                    idle.remove(this);
                }
            }
        }
    }
}
