package io.unitas.resolver.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.NameResolverRegistry;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Metadata;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.unitas.resolver.DnsResponder;
import io.unitas.resolver.DnsResponder.Srv;
import io.unitas.resolver.UnitasResolver;
import io.unitas.testkit.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** grpc-java end to end: a channel on {@code unitas:///} reaches real gRPC servers on loopback through a real DNS peer. */
class GrpcResolverTest {

    final Map<Integer, AtomicInteger> calls = new ConcurrentHashMap<>();
    final Map<Integer, Server> servers = new ConcurrentHashMap<>();
    DnsResponder dns;
    UnitasResolver resolver;
    UnitasNameResolverProvider provider;
    ManagedChannel channel;

    Server server(int port) throws Exception {
        AtomicInteger count = calls.computeIfAbsent(port, p -> new AtomicInteger());
        ServerInterceptor counting = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                               ServerCallHandler<Q, R> next) {
                count.incrementAndGet();
                return next.startCall(call, headers);
            }
        };
        Server s = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .addService(new HealthStatusManager().getHealthService()).intercept(counting).build().start();
        servers.put(port, s);
        return s;
    }

    void start(Srv... records) throws Exception {
        dns = new DnsResponder().srv("_api._tcp.shop.example", records)
                .a("gw1.shop.example", InetAddress.getByName("127.0.0.1"))
                .a("gw2.shop.example", InetAddress.getByName("127.0.0.1"));
        resolver = UnitasResolver.builder().dnsServer(dns.address()).build();
        provider = new UnitasNameResolverProvider(resolver);
        NameResolverRegistry.getDefaultRegistry().register(provider);
        channel = ManagedChannelBuilder.forTarget("unitas:///_api._tcp.shop.example:9").usePlaintext().build();
    }

    @AfterEach
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (provider != null) {
            NameResolverRegistry.getDefaultRegistry().deregister(provider);
        }
        for (Server s : servers.values()) {
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (resolver != null) {
            resolver.close();
        }
        if (dns != null) {
            dns.close();
        }
    }

    HealthCheckResponse.ServingStatus call() {
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance()).getStatus();
    }

    @Test
    void callsReachBothServersOfOnePriority_inProportionToTheirSrvWeights() throws Exception {
        int p1 = Ports.free();
        int p2 = Ports.free();
        server(p1);
        server(p2);
        start(new Srv(10, 80, p1, "gw1.shop.example"), new Srv(10, 20, p2, "gw2.shop.example"));
        // Wait until both subchannels are connected, so the split is the policy's and not the connection race's.
        call();
        io.unitas.testkit.Await.until("both endpoints connected", Duration.ofSeconds(10), () -> {
            call();
            return calls.get(p2).get() > 0 && calls.get(p1).get() > 0;
        });
        calls.values().forEach(c -> c.set(0));
        for (int i = 0; i < 500; i++) {
            assertThat(call()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        }
        assertThat(calls.get(p1).get() / 500.0).isBetween(0.7, 0.9);
    }

    @Test
    void theLowestPriorityServes_andTheNextTakesOverWhenItStops_withoutAskingDnsAgain() throws Exception {
        int p1 = Ports.free();
        int p2 = Ports.free();
        server(p1);
        server(p2);
        start(new Srv(10, 50, p1, "gw1.shop.example"), new Srv(20, 50, p2, "gw2.shop.example"));
        io.unitas.testkit.Await.until("priority 10 connected", Duration.ofSeconds(10), () -> {
            call();
            return calls.get(p1).get() > 0;
        });
        calls.values().forEach(c -> c.set(0));
        for (int i = 0; i < 50; i++) {
            call();
        }
        assertThat(calls.get(p1).get()).isEqualTo(50);
        assertThat(calls.get(p2).get()).isZero();
        int asked = dns.queries();

        servers.remove(p1).shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        io.unitas.testkit.Await.until("priority 20 serves", Duration.ofSeconds(10), () -> {
            try {
                call();
            } catch (io.grpc.StatusRuntimeException e) {
                return false; // the call in flight when the server stopped
            }
            return calls.get(p2).get() > 0;
        });
        for (int i = 0; i < 20; i++) {
            assertThat(call()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        }
        assertThat(dns.queries()).isEqualTo(asked);
    }
}
