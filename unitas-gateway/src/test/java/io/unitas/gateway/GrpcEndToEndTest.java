package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import io.unitas.core.Region;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.fence.Writes;
import io.unitas.testkit.Ports;

/**
 * gRPC through the gateway, with real gRPC servers upstream (h2c) and a real gRPC client: unary calls, errors that
 * travel in trailers or as headers only, a server stream that stays open, a call for a user at home in another
 * region through that region's gateway, the gateway's own refusals as gRPC statuses, and the gRPC health check
 * that keeps an endpoint whose server says NOT_SERVING out of rotation.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcEndToEndTest {

    static final Metadata.Key<String> SERVED_BY = Metadata.Key.of("x-unitas-served-by",
                                                                  Metadata.ASCII_STRING_MARSHALLER);

    /** Each server knows one service of its own, so an answer tells which endpoint gave it. */
    final HealthStatusManager serving = new HealthStatusManager();
    final HealthStatusManager notServing = new HealthStatusManager();
    final HealthStatusManager euServing = new HealthStatusManager();
    Server servingServer;
    Server notServingServer;
    Server euServer;
    Gateway euGateway;
    Gateway gateway;
    final FixedFeed cnFeed = feed();
    ManagedChannel channel;
    final AtomicReference<Metadata> headers = new AtomicReference<>();
    final AtomicReference<Metadata> trailers = new AtomicReference<>();

    @BeforeAll
    void start() throws IOException {
        serving.setStatus("a", ServingStatus.SERVING);
        notServing.setStatus("b", ServingStatus.SERVING);
        notServing.setStatus("", ServingStatus.NOT_SERVING); // the whole server: its endpoint is out
        euServing.setStatus("e", ServingStatus.SERVING);
        servingServer = server(serving);
        notServingServer = server(notServing);
        euServer = server(euServing);
        euGateway = GatewayServer.start(GatewayEndToEndTest.config("eu", Ports.free(), Map.of(
                Region.of("eu"), grpcUpstream(endpoint(euServer)))), feed());
        gateway = GatewayServer.start(GatewayEndToEndTest.config("cn", Ports.free(), Map.of(
                Region.of("cn"), grpcUpstream(endpoint(servingServer), endpoint(notServingServer)),
                // another region's gateway, over h2c and checked on its own health path
                Region.of("eu"), new GatewayConfig.Upstream(List.of("127.0.0.1:" + euGateway.port()), Map.of(),
                                                            Proxy.HEALTH_PATH, GatewayConfig.Protocol.H2C, null))),
                cnFeed);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.port()).usePlaintext()
                                     .intercept(MetadataUtils.newCaptureMetadataInterceptor(headers, trailers))
                                     .build();
    }

    private static GatewayConfig.Upstream grpcUpstream(String... endpoints) {
        return new GatewayConfig.Upstream(List.of(endpoints), Map.of(), GatewayConfig.Upstream.GRPC_HEALTH,
                                          GatewayConfig.Protocol.H2C, null);
    }

    private static FixedFeed feed() {
        return new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP);
    }

    private static Server server(HealthStatusManager health) throws IOException {
        return server(health, Ports.free());
    }

    private static Server server(HealthStatusManager health, int port) throws IOException {
        return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                                 .addService(health.getHealthService()).build().start();
    }

    private static String endpoint(Server server) {
        return "127.0.0.1:" + server.getPort();
    }

    @AfterAll
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        gateway.close();
        euGateway.close();
        servingServer.shutdownNow();
        notServingServer.shutdownNow();
        euServer.shutdownNow();
    }

    /** A stub calling as user 100 (unit u-cn, at home in cn). */
    private HealthGrpc.HealthBlockingStub health() {
        return health("100");
    }

    /** A stub calling as {@code user}: one routing key per call, as the gateway requires. */
    private HealthGrpc.HealthBlockingStub health(String user) {
        Metadata key = new Metadata();
        key.put(Metadata.Key.of("x-user-id", Metadata.ASCII_STRING_MARSHALLER), user);
        return HealthGrpc.newBlockingStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(key))
                         .withDeadlineAfter(5, TimeUnit.SECONDS);
    }

    private static HealthCheckRequest check(String service) {
        return HealthCheckRequest.newBuilder().setService(service).build();
    }

    @Test
    void unaryCallsGoOnlyToTheEndpointWhoseHealthServiceSaysServing() {
        for (int i = 0; i < 10; i++) {
            HealthCheckResponse answer = health().check(check("a"));

            assertThat(answer.getStatus()).isEqualTo(ServingStatus.SERVING);
        }
        assertThat(headers.get().get(SERVED_BY)).isEqualTo("cn");
        assertThat(trailers.get()).isNotNull(); // the status came in trailers, relayed as trailers
    }

    @Test
    void aCallForAUserAtHomeElsewhereGoesThroughThatRegionsGateway() {
        HealthCheckResponse answer = health("6000").check(check("e"));

        assertThat(answer.getStatus()).isEqualTo(ServingStatus.SERVING);
        assertThat(headers.get().get(SERVED_BY)).isEqualTo("eu");
    }

    @Test
    void anUpstreamThatRestartsIsConnectedAgain() throws Exception {
        HealthGrpc.HealthBlockingStub eu = health("6000");
        assertThat(eu.check(check("e")).getStatus()).isEqualTo(ServingStatus.SERVING);
        int port = euServer.getPort();

        euServer.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> eu.check(check("e"))).isInstanceOf(StatusRuntimeException.class);
        euServer = server(euServing, port);

        HealthCheckResponse answer = null;
        for (int i = 0; i < 50 && answer == null; i++) { // the gateway sees the old connection close, then dials anew
            try {
                answer = eu.check(check("e"));
            } catch (StatusRuntimeException notYet) {
                Thread.sleep(100);
            }
        }
        assertThat(answer).isNotNull();
        assertThat(answer.getStatus()).isEqualTo(ServingStatus.SERVING);
    }

    @Test
    void aServerAnsweringUnavailableIsEjectedAndCallsWithAnIdempotencyKeyGoElsewhere() throws Exception {
        HealthStatusManager goodHealth = new HealthStatusManager();
        goodHealth.setStatus("a", ServingStatus.SERVING);
        AtomicInteger refused = new AtomicInteger();
        Server overloaded = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", Ports.free()))
                                              .addService(alwaysUnavailable(refused)).build().start();
        Server good = server(goodHealth);
        GatewayConfig.Upstream both = new GatewayConfig.Upstream(List.of(endpoint(overloaded), endpoint(good)),
                                                                 Map.of(), "", GatewayConfig.Protocol.H2C, null);
        try (Gateway ejecting = GatewayServer.start(ProtocolEndToEndTest.config(Map.of(Region.of("cn"), both),
                                                                                Duration.ofSeconds(5), 4), feed())) {
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", ejecting.port()).usePlaintext().build();
            Metadata keyed = new Metadata();
            keyed.put(Metadata.Key.of("x-user-id", Metadata.ASCII_STRING_MARSHALLER), "100");
            keyed.put(Metadata.Key.of("idempotency-key", Metadata.ASCII_STRING_MARSHALLER), "k-1");
            try {
                HealthGrpc.HealthBlockingStub stub = HealthGrpc.newBlockingStub(ch)
                        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(keyed));
                for (int i = 0; i < 20; i++) { // UNAVAILABLE from one server: retried on the other
                    assertThat(stub.withDeadlineAfter(5, TimeUnit.SECONDS).check(check("a")).getStatus())
                            .isEqualTo(ServingStatus.SERVING);
                }
                // round-robin gives it every other first attempt until 4 failures eject it; 10 without
                assertThat(refused.get()).isBetween(4, 5);
            } finally {
                ch.shutdownNow();
            }
        } finally {
            overloaded.shutdownNow();
            good.shutdownNow();
        }
    }

    /** A health service that answers every call UNAVAILABLE, headers only, as an overloaded server does. */
    private static ServerServiceDefinition alwaysUnavailable(AtomicInteger calls) {
        return ServerServiceDefinition.builder(HealthGrpc.SERVICE_NAME)
                                      .addMethod(HealthGrpc.getCheckMethod(), ServerCalls.asyncUnaryCall(
                                              (request, answer) -> {
                                                  calls.incrementAndGet();
                                                  answer.onError(Status.UNAVAILABLE.withDescription("overloaded")
                                                                                   .asRuntimeException());
                                              }))
                                      .build();
    }

    @Test
    void anErrorAnsweredWithHeadersOnlyReachesTheClientAsItsStatus() {
        assertThatThrownBy(() -> health().check(check("unknown")))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }

    @Test
    void aServerStreamRelaysEachMessageAsItIsSent() {
        serving.setStatus("watched", ServingStatus.SERVING);
        Iterator<HealthCheckResponse> watch = health().withDeadlineAfter(10, TimeUnit.SECONDS)
                                                      .watch(check("watched"));

        assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.SERVING);
        serving.setStatus("watched", ServingStatus.NOT_SERVING);
        assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
        serving.setStatus("watched", ServingStatus.SERVING);
        assertThat(watch.next().getStatus()).isEqualTo(ServingStatus.SERVING);
    }

    @Test
    void aFencedUnitsGrpcCallsAreRefusedAsUnavailableExceptOnReadPaths() {
        cnFeed.fences(WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(3))),
                                     new Writes(Writes.DEFAULT_METHODS, List.of("/grpc.health.v1.Health/Check"))));
        try {
            assertThat(health().check(check("a")).getStatus()).isEqualTo(ServingStatus.SERVING);
            assertThatThrownBy(() -> health().watch(check("a")).next())
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                        assertThat(e.getStatus().getDescription()).startsWith("write-fenced: writes of unit u-cn");
                    });
        } finally {
            cnFeed.fences(WriteFences.none());
        }
    }

    @Test
    void theGatewaysOwnRefusalReachesAGrpcClientAsAStatusNamingTheProblem() {
        ManagedChannel bare = NettyChannelBuilder.forAddress("127.0.0.1", gateway.port()).usePlaintext().build();
        try {
            assertThatThrownBy(() -> HealthGrpc.newBlockingStub(bare).withDeadlineAfter(5, TimeUnit.SECONDS)
                                               .check(check("a")))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL); // gRPC's for HTTP 400
                        assertThat(e.getStatus().getDescription()).startsWith("missing-routing-key: ");
                    });
        } finally {
            bare.shutdownNow();
        }
    }
}
