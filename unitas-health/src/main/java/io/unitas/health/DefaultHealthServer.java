package io.unitas.health;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.Server;

import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.protobuf.services.HealthStatusManager;

import io.unitas.config.HealthReportJson;
import io.unitas.core.health.HealthReport;
import io.unitas.server.bounds.ConnectionBounds;

/** An Armeria server for the HTTP endpoints and a grpc-java server for the health protocol, over one agent. */
final class DefaultHealthServer implements HealthServer {

    private static final MediaType PROMETHEUS = MediaType.parse("text/plain; version=0.0.4; charset=utf-8");

    /** Connections to the HTTP port at once; more are closed as they are accepted. */
    static final int HTTP_MAX_CONNECTIONS = 256;
    /**
     * An HTTP connection without a request for this long is closed (Armeria's default, stated here), and so is one
     * whose request head is unfinished: bytes of a head do not extend it, so a client trickling one is closed too.
     */
    static final Duration HTTP_IDLE_TIMEOUT = Duration.ofSeconds(15);

    private final DefaultHealthAgent agent;
    private final HealthMetrics metrics;
    private final HealthStatusManager grpcHealth = new HealthStatusManager();
    private final HealthPusher pusher;
    private final GrpcConnections grpcLimits;
    private final GrpcConnections.Gate grpcGate;
    private Server http;
    private io.grpc.Server grpc;
    private NioEventLoopGroup grpcLoops;

    private DefaultHealthServer(DefaultHealthAgent agent, GrpcConnections grpcLimits) {
        this.agent = agent;
        this.grpcLimits = grpcLimits;
        this.grpcGate = new GrpcConnections.Gate(grpcLimits.maxConnections());
        this.metrics = new HealthMetrics(agent);
        this.pusher = agent.config().push().map(push -> new HealthPusher(push, agent::current)).orElse(null);
    }

    static HealthServer start(HealthConfig config, Clock clock, UnitLagSource unitLags) {
        return start(config, clock, unitLags, GrpcConnections.DEFAULT);
    }

    /** As above, with the gRPC port bounded by {@code grpcLimits}. */
    static DefaultHealthServer start(HealthConfig config, Clock clock, UnitLagSource unitLags,
                                     GrpcConnections grpcLimits) {
        DefaultHealthAgent agent = new DefaultHealthAgent(config, clock, unitLags);
        DefaultHealthServer server = new DefaultHealthServer(agent, grpcLimits);
        try {
            server.serve();
            agent.start();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void serve() {
        HealthConfig config = agent.config();
        agent.observeResults(metrics::record);
        // HealthStatusManager starts "" as SERVING; nothing is known yet, so the region is not serving.
        grpcHealth.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.NOT_SERVING);
        agent.subscribe(this::publish);
        ConnectionBounds bounds = new ConnectionBounds();
        http = Server.builder()
                .http(new InetSocketAddress(config.address(), config.httpPort()))
                .gracefulShutdownTimeoutMillis(0, 0)
                // bounds of an unauthenticated port: few connections, and a kernel receive buffer that autotuning
                // cannot grow to tcp_rmem's largest (32 MB on some hosts) for a client that is no longer read
                .maxNumConnections(HTTP_MAX_CONNECTIONS)
                .idleTimeout(HTTP_IDLE_TIMEOUT)
                .childChannelOption(io.netty.channel.ChannelOption.SO_RCVBUF, ConnectionBounds.RECEIVE_BUFFER)
                // and a connection is read only while it takes its answers (see ConnectionBounds)
                .http2MaxStreamsPerConnection(ConnectionBounds.MAX_STREAMS)
                .childChannelPipelineCustomizer(bounds.pipeline())
                .decorator(bounds::serve)
                .service("/livez", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ok\n"))
                .service("/readyz", (ctx, req) -> readyz(agent.current()))
                .service("/healthz", (ctx, req) -> {
                    HealthReport report = agent.current();
                    return HttpResponse.of(status(report), MediaType.JSON_UTF_8, HealthReportJson.write(report));
                })
                .service("/metrics", (ctx, req) ->
                        HttpResponse.of(HttpStatus.OK, PROMETHEUS, metrics.scrape(agent.current())))
                .build();
        http.start().join();
        try {
            grpcLoops = new NioEventLoopGroup(1, r -> {
                Thread t = new Thread(r, "unitas-health-grpc");
                t.setDaemon(true);
                return t;
            });
            grpc = NettyServerBuilder.forAddress(new InetSocketAddress(config.address(), config.grpcPort()))
                    .channelFactory(grpcGate::channel)
                    .bossEventLoopGroup(grpcLoops)
                    .workerEventLoopGroup(grpcLoops)
                    .maxConnectionIdle(grpcLimits.idle().toMillis(), TimeUnit.MILLISECONDS)
                    .handshakeTimeout(grpcLimits.handshake().toMillis(), TimeUnit.MILLISECONDS)
                    .maxConcurrentCallsPerConnection(grpcLimits.callsPerConnection())
                    .maxInboundMessageSize(GrpcConnections.MAX_MESSAGE_BYTES)
                    .maxInboundMetadataSize(GrpcConnections.MAX_METADATA_BYTES)
                    .maxRstFramesPerWindow(GrpcConnections.MAX_RESETS, GrpcConnections.RESET_WINDOW_SECONDS)
                    .addService(grpcHealth.getHealthService()).build().start();
        } catch (IOException e) {
            throw new UncheckedIOException("grpc health on " + config.address() + ":" + config.grpcPort()
                                           + ": " + e.getMessage(), e);
        }
    }

    private void publish(HealthReport report) {
        grpcHealth.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, serving(report.healthy()));
        report.checks().forEach((name, check) -> grpcHealth.setStatus(name, serving(check.up())));
        if (pusher != null) {
            pusher.offer(report);
        }
    }

    private static ServingStatus serving(boolean up) {
        return up ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    }

    private static HttpStatus status(HealthReport report) {
        return report.healthy() ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE;
    }

    private static HttpResponse readyz(HealthReport report) {
        StringBuilder body = new StringBuilder(report.healthy() ? "ready" : "not ready")
                .append(": region ").append(report.region()).append('\n');
        report.reasons().forEach(reason -> body.append("- ").append(reason).append('\n'));
        return HttpResponse.of(status(report), MediaType.PLAIN_TEXT_UTF_8, body.toString());
    }

    @Override
    public HealthAgent agent() {
        return agent;
    }

    @Override
    public int httpPort() {
        return http.activeLocalPort();
    }

    /** The gRPC port's connections: open now, and closed at once for being past the cap. */
    GrpcConnections.Gate grpcConnections() {
        return grpcGate;
    }

    @Override
    public int grpcPort() {
        return grpc.getPort();
    }

    @Override
    public void close() {
        if (pusher != null) {
            pusher.close();
        }
        if (grpc != null) {
            grpcHealth.enterTerminalState();
            grpc.shutdownNow();
            try {
                grpc.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (grpcLoops != null) {
            grpcLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        if (http != null) {
            http.stop().join();
        }
        agent.close();
    }
}
