package io.unitas.gateway;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.unitas.control.client.state.RoutingState;
import io.unitas.control.client.state.StateFeed;
import io.unitas.control.client.state.StateHolder;
import io.unitas.control.client.state.StateSource;

/**
 * The gateway's server on Netty: HTTP/1.1 and h2c (prior knowledge or upgrade) on one port, one event loop per core,
 * each holding its downstream connections and its own pool of upstream connections. The proxy serves every path but
 * the gateway's own {@code /metrics} and {@code /unitas/healthz}.
 */
final class GatewayServer implements Gateway {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);

    private static final int MAX_INITIAL_LINE = 8 * 1024;
    private static final int MAX_HEADERS = 64 * 1024;
    private static final int MAX_CHUNK = 16 * 1024;
    /** Streams one HTTP/2 client connection may have open at once (nginx's default is 128). */
    static final int MAX_CONCURRENT_STREAMS = 128;
    /** Streams one HTTP/2 client may reset in {@link #RESET_WINDOW_SECONDS} before it is sent GOAWAY. */
    static final int MAX_RESETS_PER_WINDOW = 32;
    static final int RESET_WINDOW_SECONDS = 10;
    /** How long a stop waits for the exchanges in flight, on the gateway's ticker. */
    static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How often each event loop checks its deadlines: the resolution of every timeout. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Channel server;
    private final EventLoopGroup loops;
    private final ChannelGroup connections;
    private final StateHolder holder;
    private final StateFeed feed;
    private final Upstreams upstreams;
    private final Proxy proxy;
    private final GatewayMetrics metrics;
    private final UnreachableReporter reporter;
    private final String transport;
    private final String timeSlices;
    private final CountDownLatch closed = new CountDownLatch(1);
    /** The listener of the gateway's own endpoints, or {@code null} when they are served on the traffic port. */
    private final AdminListener admin;

    private GatewayServer(Channel server, EventLoopGroup loops, ChannelGroup connections, StateHolder holder,
                          StateFeed feed, Upstreams upstreams, Proxy proxy, GatewayMetrics metrics,
                          UnreachableReporter reporter, String transport, String timeSlices, AdminListener admin) {
        this.admin = admin;
        this.server = server;
        this.loops = loops;
        this.connections = connections;
        this.holder = holder;
        this.feed = feed;
        this.upstreams = upstreams;
        this.proxy = proxy;
        this.metrics = metrics;
        this.reporter = reporter;
        this.transport = transport;
        this.timeSlices = timeSlices;
    }

    static StateFeed feedFor(GatewayConfig config) {
        return config.source().feed(config.writes());
    }

    static Gateway start(GatewayConfig config, StateFeed feed) {
        return start(config, feed, Clock.systemUTC(), System::nanoTime);
    }

    /** As {@link #start(GatewayConfig, StateFeed)}, telling health transitions and hold-downs by {@code clock}. */
    static GatewayServer start(GatewayConfig config, StateFeed feed, Clock clock) {
        return start(config, feed, clock, System::nanoTime);
    }

    /**
     * Starts a gateway whose every timeout and time measurement reads {@code ticker} (nanoseconds); tests give a
     * ticker they move and call {@link #checkTimeouts()}.
     */
    static GatewayServer start(GatewayConfig config, StateFeed feed, LongSupplier ticker) {
        return start(config, feed, Clock.systemUTC(), ticker);
    }

    /** Starts a gateway on {@code clock} (health transitions, hold-downs) and {@code ticker} (every timeout). */
    static GatewayServer start(GatewayConfig config, StateFeed feed, Clock clock, LongSupplier ticker) {
        Transport transport = Transport.of(config.transport()); // opens nothing: a missing layer stops the start
        StateHolder holder = new StateHolder(ticker, clock, config.routing().holdDown());
        feed.start(holder); // first, so that bad state files stop the start before anything is opened
        int workers = config.workers() > 0 ? config.workers() : Runtime.getRuntime().availableProcessors();
        EventLoopGroup loops = transport.group(workers, "unitas-gateway");
        String timeSlices = config.shortTimeSlices() ? TimeSlice.shortestFor(loops) : TimeSlice.KERNELS;
        UnreachableReporter reporter = null;
        try {
            Connections pools = new Connections(loops, transport, config.resilience().connectTimeout(), ticker);
            Upstreams upstreams = new Upstreams(config.upstreams(), config.resilience(), ticker);
            upstreams.startHealthChecks(pools, loops);
            GatewayMetrics metrics = new GatewayMetrics(config.region().id(), accessLog(config.accessLog()), clock);
            if (feed.watchStatus() != null) {
                metrics.watch(feed::watchStatus);
            }
            Reachability reachability = new Reachability(upstreams.endpointsByRegion(), ticker, Reachability.WINDOW);
            reporter = config.source() instanceof StateSource.ControlPlane cp
                       ? UnreachableReporter.start(config.region(), reachability, cp.client(),
                                                   metrics::unreachableReported)
                       : null;
            metrics.reachability(reachability, reporter);
            ClientLimits limits = new ClientLimits(config.limits());
            metrics.clientLimits(limits);
            Timeouts timeouts = new Timeouts(loops, ticker, TICK_NANOS);
            metrics.timeouts(timeouts);
            Proxy proxy = new Proxy(config, holder, upstreams, pools, metrics, clock, timeouts, limits);
            ConnectionErrors errors = new ConnectionErrors(ticker);
            metrics.connectionErrors(errors);
            SslContext tls = config.tls() == null ? null : ListenerTls.context(config.tls());
            ChannelGroup open = new DefaultChannelGroup("unitas-gateway", GlobalEventExecutor.INSTANCE);
            ChannelFuture bound = transport.accepting(new ServerBootstrap())
                    .group(loops)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (!limits.admit()) { // over max_connections: closed at once, before a byte is read
                                ch.close();
                                return;
                            }
                            ch.closeFuture().addListener(f -> limits.closed());
                            open.add(ch);
                            ConnectionGuard guard = proxy.newGuard();
                            if (tls != null) {
                                ch.pipeline().addLast(guard, tls.newHandler(ch.alloc()),
                                                      http2OrHttp1OverTls(proxy, guard, errors));
                            } else {
                                ch.pipeline().addLast(guard, http2OrHttp1(proxy, guard, errors),
                                                      proxy.newHandler(false, guard));
                            }
                        }
                    })
                    .bind(config.listen()).awaitUninterruptibly();
            if (!bound.isSuccess()) {
                InetSocketAddress at = config.listen();
                throw new IllegalStateException("cannot listen on " + at.getHostString() + ":" + at.getPort() + ": "
                                                + bound.cause().getMessage());
            }
            AdminListener admin = config.admin().listen() == null ? null
                    : AdminListener.start(config.admin().listen(), loops, transport, timeouts, proxy.admin);
            if (config.admin().open()) {
                LOG.warn("gateway: /metrics and the details of /unitas/healthz are open to anyone on the traffic port "
                         + "{}; give them a port of their own (admin.listen) or a token (admin.token_file) in the "
                         + "gateway's configuration", config.listen().getHostString() + ":" + config.listen().getPort());
            }
            return new GatewayServer(bound.channel(), loops, open, holder, feed, upstreams, proxy, metrics, reporter,
                                     transport.name(), timeSlices, admin);
        } catch (RuntimeException e) {
            if (reporter != null) {
                reporter.close();
            }
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            feed.close();
            throw e;
        }
    }

    /**
     * HTTP/1.1, turned into HTTP/2 by a prior-knowledge preface or an {@code Upgrade: h2c} request; each HTTP/2
     * stream then gets a proxy handler of its own, speaking in HTTP/1.1 objects.
     */
    private static ChannelHandler http2OrHttp1(Proxy proxy, ConnectionGuard guard, ConnectionErrors errors) {
        HttpServerCodec http1 = new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, MAX_CHUNK);
        ChannelInitializer<Http2StreamChannel> stream = streams(proxy, guard);
        HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(http1, protocol ->
                AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                ? new Http2ServerUpgradeCodec(h2Codec(),
                                              new Http2MultiplexHandler(stream), errors)
                : null) {
            // An upgrade would hold the whole body in memory first (and refuse it with 413 past a bound); a request
            // with a body is served over HTTP/1.1 instead, as a server may ignore an upgrade (RFC 9110 7.8). The
            // JDK's default client asks for h2c on a connection's first request, POSTs included.
            @Override
            protected boolean shouldHandleUpgradeRequest(HttpRequest req) {
                return super.shouldHandleUpgradeRequest(req) && HttpUtil.getContentLength(req, 0L) == 0
                       && !HttpUtil.isTransferEncodingChunked(req);
            }
        };
        ChannelInitializer<Channel> priorKnowledge = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(h2Codec(), new Http2MultiplexHandler(stream), errors);
            }
        };
        return new CleartextHttp2ServerUpgradeHandler(http1, upgrade, priorKnowledge);
    }

    /**
     * A client connection's HTTP/2 codec, with its share of the gateway bounded: at most
     * {@link #MAX_CONCURRENT_STREAMS} streams at once (more are refused with {@code REFUSED_STREAM} before anything is
     * sent upstream), and GOAWAY to a client that resets more than {@link #MAX_RESETS_PER_WINDOW} streams in
     * {@link #RESET_WINDOW_SECONDS} s, since each stream it opens and resets at once has already been sent upstream
     * (CVE-2023-44487, "rapid reset"; Netty's own bound let some 200 through).
     */
    private static Http2FrameCodec h2Codec() {
        return Http2FrameCodecBuilder.forServer()
                .initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(MAX_CONCURRENT_STREAMS))
                .decoderEnforceMaxRstFramesPerWindow(MAX_RESETS_PER_WINDOW, RESET_WINDOW_SECONDS)
                .build();
    }

    /** Over TLS: HTTP/2 or HTTP/1.1 as ALPN agreed, HTTP/1.1 for a client that offered neither. */
    private static ChannelHandler http2OrHttp1OverTls(Proxy proxy, ConnectionGuard guard, ConnectionErrors errors) {
        return new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
            @Override
            protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                    ctx.pipeline().addLast(h2Codec(),
                                           new Http2MultiplexHandler(streams(proxy, guard)), errors);
                } else {
                    ctx.pipeline().addLast(new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, MAX_CHUNK),
                                           proxy.newHandler(false, guard));
                }
            }
        };
    }

    /**
     * Each HTTP/2 stream gets a proxy handler of its own, speaking in HTTP/1.1 objects, and telling the connection's
     * guard when its request is in progress.
     */
    private static ChannelInitializer<Http2StreamChannel> streams(Proxy proxy, ConnectionGuard guard) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true), proxy.newHandler(true, guard));
            }
        };
    }

    /**
     * The access log's stream: buffered, flushed once a second by the metrics' flusher rather than per line, so
     * writing it costs a request no system call.
     */
    private static PrintStream accessLog(String target) {
        OutputStream out = switch (target) {
            case "off" -> null;
            case "stdout" -> new FileOutputStream(FileDescriptor.out);
            case "stderr" -> new FileOutputStream(FileDescriptor.err);
            default -> {
                try {
                    yield new FileOutputStream(target, true);
                } catch (IOException e) {
                    throw new UncheckedIOException("access_log: cannot open " + target, e);
                }
            }
        };
        return out == null ? null
                           : new PrintStream(new BufferedOutputStream(out, 1 << 16), false, StandardCharsets.UTF_8);
    }

    @Override
    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The admin listener's port, or -1 when the gateway's own endpoints are served on the traffic port. */
    int adminPort() {
        return admin == null ? -1 : admin.port();
    }

    @Override
    public String transport() {
        return transport;
    }

    @Override
    public String timeSlices() {
        return timeSlices;
    }

    @Override
    public long revision() {
        RoutingState s = holder.get();
        return s == null ? -1 : s.revision();
    }

    /** Checks every deadline against the ticker now, rather than at the next tick; for tests that move the ticker. */
    void checkTimeouts() {
        proxy.timeouts.checkNow();
    }

    /** Exchanges in flight now. */
    int exchangesInFlight() {
        return proxy.inFlight.get();
    }

    /** The client connections' counts. */
    ClientLimits clientLimits() {
        return proxy.limits;
    }

    @Override
    public void awaitClose() throws InterruptedException {
        closed.await();
    }

    /** Stops taking connections at once, gives exchanges in flight 5 s of the ticker, then closes everything. */
    @Override
    public void close() {
        if (closed.getCount() == 0) {
            return;
        }
        feed.close();
        if (reporter != null) {
            reporter.close();
        }
        server.close().syncUninterruptibly();
        if (admin != null) {
            admin.close();
        }
        Timeouts ticker = proxy.timeouts;
        long deadline = ticker.now() + DRAIN_NANOS;
        while (proxy.inFlight.get() > 0 && ticker.now() - deadline < 0) { // as tickers compare: they may wrap
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        connections.close().awaitUninterruptibly();
        upstreams.close();
        proxy.connections.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        metrics.close();
        closed.countDown();
    }
}
