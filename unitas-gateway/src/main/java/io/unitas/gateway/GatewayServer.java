package io.unitas.gateway;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.common.Flags;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.Server;

/** The gateway's server: the proxy under {@code /}, {@code /metrics} and {@code /unitas/healthz} beside it. */
final class GatewayServer implements Gateway {

    /** The gateway's own health path; other regions' gateways are checked on it. */
    static final String HEALTH_PATH = "/unitas/healthz";

    private final Server server;
    private final StateHolder holder;
    private final StateFeed feed;
    private final Upstreams upstreams;
    private final ClientFactory factory;
    private final GatewayMetrics metrics;
    private final CountDownLatch closed = new CountDownLatch(1);

    private GatewayServer(Server server, StateHolder holder, StateFeed feed, Upstreams upstreams,
                          ClientFactory factory, GatewayMetrics metrics) {
        this.metrics = metrics;
        this.server = server;
        this.holder = holder;
        this.feed = feed;
        this.upstreams = upstreams;
        this.factory = factory;
    }

    static StateFeed feedFor(GatewayConfig config) {
        if (config.source() instanceof GatewayConfig.ControlPlane cp) {
            return new ControlPlaneFeed(cp, config.writeMethods());
        }
        return new StaticFilesFeed((GatewayConfig.StaticFiles) config.source(), config.writeMethods());
    }

    static Gateway start(GatewayConfig config, StateFeed feed) {
        GatewayConfig.Resilience r = config.resilience();
        StateHolder holder = new StateHolder(System::nanoTime);
        feed.start(holder); // first, so that bad state files stop the start before anything is opened
        // Spread the connections to one upstream over every event loop, as the server's connections are, instead
        // of funnelling all of a busy endpoint's traffic through one loop.
        int loops = Flags.numCommonWorkers();
        ClientFactory factory = ClientFactory.builder()
                                             .connectTimeout(r.connectTimeout())
                                             .maxNumEventLoopsPerEndpoint(loops)
                                             .maxNumEventLoopsPerHttp1Endpoint(loops)
                                             .build();
        Upstreams upstreams = new Upstreams(config.upstreams(), r, factory);
        GatewayMetrics metrics = new GatewayMetrics(config.region().id(), accessLog(config.accessLog()));
        ProxyService proxy = new ProxyService(config, holder, upstreams, metrics);
        Server server = Server.builder()
                              .http(config.listen())
                              .maxRequestLength(0)
                              // No quiet period: stop taking requests at once, give those in flight 5 s.
                              .gracefulShutdownTimeout(Duration.ZERO, Duration.ofSeconds(5))
                              .requestTimeout(r.responseTimeout().plus(Duration.ofSeconds(5)))
                              .service("/metrics", (ctx, req) -> HttpResponse.of(
                                      HttpStatus.OK, MediaType.parse("text/plain; version=0.0.4; charset=utf-8"),
                                      metrics.registry().scrape()))
                              .service(HEALTH_PATH, (ctx, req) -> holder.get() == null
                                      ? HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
                                                        "no routing state")
                                      : HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ok"))
                              .serviceUnder("/", proxy)
                              .build();
        server.start().join();
        return new GatewayServer(server, holder, feed, upstreams, factory, metrics);
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
        return server.activeLocalPort();
    }

    @Override
    public long revision() {
        RoutingState s = holder.get();
        return s == null ? -1 : s.revision();
    }

    @Override
    public void awaitClose() throws InterruptedException {
        closed.await();
    }

    @Override
    public void close() {
        feed.close();
        server.stop().join();
        upstreams.close();
        factory.close();
        metrics.close();
        closed.countDown();
    }
}
