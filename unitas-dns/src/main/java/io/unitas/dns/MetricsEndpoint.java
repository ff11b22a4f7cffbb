package io.unitas.dns;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The DNS server's {@code GET /metrics}, on an event loop of its own (a scrape never delays a DNS answer). Each
 * connection carries one request and is closed after its response ({@code Connection: close}), so a client that
 * pipelines requests without reading gets one answer, not a backlog; at most {@link #MAX_CONNECTIONS} are open, and
 * each is closed {@link #DEADLINE} after it opened, measured on an injected ticker whether its request head is still
 * trickling in or its response is still unread. One slow client therefore holds one place for ten seconds, never
 * every scrape.
 */
final class MetricsEndpoint implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

    /** From opening a connection to its response sent: the header and idle timeout at once. */
    static final Duration DEADLINE = Duration.ofSeconds(10);
    /** Connections open at once; one more is closed as it is accepted. */
    static final int MAX_CONNECTIONS = 16;
    /** The request line's and the request head's bounds, in bytes. */
    private static final int MAX_LINE = 4096;
    private static final int MAX_HEAD = 8192;

    private final EventLoopGroup loop;
    private final LongSupplier ticker;
    private Channel listener;
    private final Map<Channel, Long> deadlines = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();

    private MetricsEndpoint(EventLoopGroup loop, LongSupplier ticker) {
        this.loop = loop;
        this.ticker = ticker;
    }

    /** Serves {@code scrape} at {@code at}; throws {@link IllegalStateException} naming the address when it cannot. */
    static MetricsEndpoint start(InetSocketAddress at, Supplier<String> scrape, LongSupplier ticker, LoopGuard guard) {
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("unitas-dns-metrics", true),
                                                              NioIoHandler.newFactory());
        MetricsEndpoint self = new MetricsEndpoint(loop, ticker);
        ChannelFuture bound = new ServerBootstrap().group(loop).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        self.accept(ch, scrape);
                    }
                })
                .bind(at).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot serve metrics on " + at.getHostString() + ":" + at.getPort() + ": "
                                            + bound.cause().getMessage());
        }
        self.listener = bound.channel();
        loop.next().scheduleAtFixedRate(guard.guard("metrics deadlines", self::checkDeadlines),
                                        1, 1, TimeUnit.SECONDS);
        return self;
    }

    private void accept(Channel ch, Supplier<String> scrape) {
        if (open.incrementAndGet() > MAX_CONNECTIONS) {
            open.decrementAndGet();
            ch.close();
            return;
        }
        deadlines.put(ch, ticker.getAsLong() + DEADLINE.toNanos());
        ch.closeFuture().addListener(f -> {
            deadlines.remove(ch);
            open.decrementAndGet();
        });
        ch.pipeline().addLast(new HttpServerCodec(MAX_LINE, MAX_HEAD, 8192), new Exchange(scrape));
    }

    /** The port it listens on. */
    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Closes every connection past its deadline; its loop calls it every second, tests after moving the ticker. */
    void checkDeadlines() {
        long now = ticker.getAsLong();
        deadlines.forEach((ch, deadline) -> {
            if (now - deadline >= 0 && deadlines.remove(ch, deadline)) {
                ch.close();
            }
        });
    }

    @Override
    public void close() {
        listener.close().awaitUninterruptibly();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** One connection's one request. */
    private static final class Exchange extends SimpleChannelInboundHandler<HttpObject> {
        private final Supplier<String> scrape;
        private boolean answered;

        Exchange(Supplier<String> scrape) {
            this.scrape = scrape;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (answered || !(msg instanceof HttpRequest request)) {
                return; // a body, or what was pipelined after the one request
            }
            answered = true;
            ctx.channel().config().setAutoRead(false); // nothing more is read from this connection
            Throwable bad = request.decoderResult().cause();
            if (bad != null) {
                boolean tooLong = bad instanceof TooLongHttpHeaderException || bad instanceof TooLongHttpLineException
                                  || bad instanceof TooLongFrameException;
                respond(ctx, tooLong ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                                     : HttpResponseStatus.BAD_REQUEST, "");
            } else if (!request.uri().equals("/metrics") && !request.uri().startsWith("/metrics?")) {
                respond(ctx, HttpResponseStatus.NOT_FOUND, "");
            } else if (!request.method().equals(HttpMethod.GET)) {
                respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "");
            } else {
                String body;
                try {
                    body = scrape.get();
                } catch (RuntimeException e) {
                    log.error("metrics: the scrape failed: {}", e.toString());
                    respond(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "");
                    return;
                }
                respond(ctx, HttpResponseStatus.OK, body);
            }
        }

        /** Sends the response and closes the connection once it is sent. */
        private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String body) {
            ByteBuf content = body.isEmpty() ? Unpooled.EMPTY_BUFFER
                                                              : Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
                       .set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes())
                       .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a reset: this connection only
        }
    }
}
