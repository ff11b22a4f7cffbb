package io.unitas.resolver;

import static io.unitas.resolver.ResolverTest.ip;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.unitas.testkit.Ports;
import org.junit.jupiter.api.Test;

/** The three probes against real servers on loopback: what counts as up and what as down. */
class ProbesTest {

    static final Duration TIMEOUT = Duration.ofSeconds(5);

    static boolean up(CompletableFuture<?> probe) {
        return probe.handle((r, t) -> t == null).join();
    }

    @Test
    void tcp_upWhenTheConnectionIsAccepted() throws Exception {
        EndpointProbe tcp = EndpointProbe.tcp(TIMEOUT);
        try (ServerSocket s = new ServerSocket(Ports.free(), 50, ip("127.0.0.1"))) {
            assertThat(up(tcp.probe(new InetSocketAddress(ip("127.0.0.1"), s.getLocalPort())))).isTrue();
        }
        assertThat(up(tcp.probe(new InetSocketAddress(ip("127.0.0.1"), Ports.free())))).isFalse();
    }

    @Test
    void http_upOn2xxOr3xx_downOn5xxOrNoServer() throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(ip("127.0.0.1"), Ports.free()), 0);
        s.createContext("/healthz", x -> {
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        s.createContext("/sick", x -> {
            x.sendResponseHeaders(503, -1);
            x.close();
        });
        s.start();
        try {
            InetSocketAddress a = s.getAddress();
            assertThat(up(EndpointProbe.http("/healthz", TIMEOUT).probe(a))).isTrue();
            assertThat(up(EndpointProbe.http("/sick", TIMEOUT).probe(a))).isFalse();
        } finally {
            s.stop(0);
        }
        assertThat(up(EndpointProbe.http("/healthz", TIMEOUT).probe(new InetSocketAddress(ip("127.0.0.1"), Ports.free()))))
                .isFalse();
    }

    @Test
    void grpcHealth_upOnlyWhenServing() throws Exception {
        HealthStatusManager health = new HealthStatusManager();
        int port = Ports.free();
        Server s = NettyServerBuilder.forAddress(new InetSocketAddress(ip("127.0.0.1"), port))
                .addService(health.getHealthService()).build().start();
        InetSocketAddress a = new InetSocketAddress(ip("127.0.0.1"), port);
        try (EndpointProbe whole = EndpointProbe.grpcHealth("", TIMEOUT);
             EndpointProbe orders = EndpointProbe.grpcHealth("shop.Orders", TIMEOUT)) {
            assertThat(up(whole.probe(a))).isTrue();
            assertThat(up(orders.probe(a))).as("an unknown service is NOT_FOUND").isFalse();
            health.setStatus("shop.Orders", ServingStatus.SERVING);
            assertThat(up(orders.probe(a))).isTrue();
            health.setStatus("shop.Orders", ServingStatus.NOT_SERVING);
            assertThat(up(orders.probe(a))).isFalse();
        } finally {
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
