package io.unitas.gateway;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;

/**
 * The listener of the gateway's own endpoints when {@code admin.listen} gives them a port of their own. Small and
 * bounded, as a scraper and a health checker need it: {@link #MAX_CONNECTIONS} connections, a 4 KiB request line
 * and an 8 KiB head, no body, {@link #DEADLINE} for a request head, as long idle and as long to take an answer, and
 * one request at a time: the next is not read until the answer to this one is written out, so a client that sends
 * and never reads holds one answer, not a heap's worth.
 */
final class AdminListener implements AutoCloseable {

    static final int MAX_CONNECTIONS = 16;
    static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final int MAX_INITIAL_LINE = 4 * 1024;
    private static final int MAX_HEADERS = 8 * 1024;
    /** Requests held while an answer is unwritten (those that came in one read): an honest client pipelines few. */
    static final int MAX_QUEUED = 16;

    private final Channel server;

    private AdminListener(Channel server) {
        this.server = server;
    }

    static AdminListener start(InetSocketAddress address, EventLoopGroup loops, Transport transport,
                               Timeouts timeouts, AdminEndpoints endpoints) {
        ClientLimits limits = new ClientLimits(new GatewayConfig.Limits(MAX_CONNECTIONS, DEADLINE, DEADLINE));
        ChannelFuture bound = transport.accepting(new ServerBootstrap())
                .group(loops)
                .childOption(ChannelOption.SO_RCVBUF, 64 << 10)
                .childOption(ChannelOption.SO_SNDBUF, 64 << 10)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 << 10, 64 << 10))
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (!limits.admit()) {
                            ch.close();
                            return;
                        }
                        ch.closeFuture().addListener(f -> limits.closed());
                        ConnectionGuard guard = new ConnectionGuard(timeouts, limits);
                        ch.pipeline().addLast(guard, new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, 8 * 1024),
                                              new HttpObjectAggregator(0), new Handler(endpoints, guard, timeouts));
                    }
                })
                .bind(address).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IllegalStateException("admin.listen: cannot listen on " + address.getHostString() + ":"
                                            + address.getPort() + ": " + bound.cause().getMessage());
        }
        return new AdminListener(bound.channel());
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
    }

    /**
     * Answers one request at a time. Reading stops while an answer is unwritten; requests that arrived in the same
     * read are held, at most {@link #MAX_QUEUED}, past which the connection is closed. An answer not written out
     * within {@link #DEADLINE} (a client that does not read) closes the connection.
     */
    private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final AdminEndpoints endpoints;
        private final ConnectionGuard guard;
        private final Timeouts timeouts;
        private final ArrayDeque<FullHttpRequest> queued = new ArrayDeque<>();
        private Timeouts.Entry writeDeadline;
        private boolean answering;

        Handler(AdminEndpoints endpoints, ConnectionGuard guard, Timeouts timeouts) {
            this.endpoints = endpoints;
            this.guard = guard;
            this.timeouts = timeouts;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            writeDeadline = timeouts.entry(ctx.executor(), now -> ctx.close());
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (answering) {
                if (queued.size() >= MAX_QUEUED) {
                    ctx.close();
                    return;
                }
                queued.add(req.retain());
                return;
            }
            answer(ctx, req);
        }

        private void answer(ChannelHandlerContext ctx, FullHttpRequest req) {
            answering = true;
            guard.requestStarted();
            ctx.channel().config().setAutoRead(false);
            writeDeadline.arm(timeouts.now() + DEADLINE.toNanos());
            boolean keepAlive = HttpUtil.isKeepAlive(req) && req.decoderResult().isSuccess();
            FullHttpResponse res;
            if (!req.decoderResult().isSuccess()) {
                res = endpoints.plain(HttpResponseStatus.BAD_REQUEST, "bad request\n");
            } else if (!HttpMethod.GET.equals(req.method())) {
                res = endpoints.plain(HttpResponseStatus.METHOD_NOT_ALLOWED, "expected GET\n");
                res.headers().set(HttpHeaderNames.ALLOW, "GET");
            } else {
                String uri = req.uri();
                int q = uri.indexOf('?');
                res = endpoints.onAdmin(q < 0 ? uri : uri.substring(0, q), req.headers());
            }
            if (!keepAlive) {
                res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            ctx.writeAndFlush(res).addListener(f -> {
                writeDeadline.disarm();
                guard.requestEnded();
                answering = false;
                if (!f.isSuccess() || !keepAlive) {
                    ctx.close();
                    return;
                }
                FullHttpRequest next = queued.poll();
                if (next == null) {
                    ctx.channel().config().setAutoRead(true);
                    return;
                }
                try {
                    answer(ctx, next);
                } finally {
                    next.release();
                }
            });
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            queued.forEach(FullHttpRequest::release);
            queued.clear();
            writeDeadline.remove();
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a reset or a broken head: nothing to answer, nothing to log per connection
        }
    }
}
