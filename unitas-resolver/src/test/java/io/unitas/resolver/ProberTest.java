package io.unitas.resolver;

import static io.unitas.resolver.ResolverTest.ip;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.endpoint.EndpointState;
import io.unitas.core.endpoint.LatencyWeight;
import io.unitas.resolver.DnsResponder.Srv;
import io.unitas.testkit.Await;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Seed 003 (2.4, 3.3): probes every 3 s feed the endpoint states and the latency weights. */
class ProberTest {

    static final ServiceName API = ServiceName.srv("_api._tcp.shop.example", 8443);

    final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final AtomicInteger probed = new AtomicInteger();
    ServerSocket up;
    int downPort;
    DnsResponder dns;
    DefaultResolver resolver;

    @BeforeEach
    void start() throws Exception {
        up = new ServerSocket(Ports.free(), 50, ip("127.0.0.1"));
        downPort = Ports.free();
        dns = new DnsResponder()
                .srv("_api._tcp.shop.example", new Srv(10, 50, up.getLocalPort(), "up.shop.example"),
                        new Srv(10, 50, downPort, "down.shop.example"))
                .a("up.shop.example", ip("127.0.0.1"))
                .a("down.shop.example", ip("127.0.0.1"))
                .ttl(3600);
    }

    @AfterEach
    void stop() throws IOException {
        if (resolver != null) {
            resolver.close();
        }
        dns.close();
        up.close();
    }

    DefaultResolver resolver(EndpointProbe probe) {
        resolver = (DefaultResolver) UnitasResolver.builder().dnsServer(dns.address()).clock(clock)
                .meterRegistry(meters).tick(Duration.ofHours(1)).probe(probe).build();
        return resolver;
    }

    /**
     * One round of probes: move the clock by the interval, tick, wait until every endpoint's probe came back and the
     * resolver has recorded it (the counter below moves just before the resolver sees the result: reading state
     * then, or starting the next round, would race the last probe's bookkeeping).
     */
    void round(int endpoints) {
        int before = probed.get();
        clock.advance(Duration.ofSeconds(3));
        resolver.tick();
        Await.until("a round of probes", Duration.ofSeconds(10),
                    () -> probed.get() >= before + endpoints && resolver.probesInFlight() == 0);
    }

    EndpointState state(int port) {
        return resolver.resolve(API).join().endpoints().stream().filter(e -> e.address().getPort() == port)
                .findFirst().orElseThrow().state();
    }

    @Test
    void tcpProbes_degradeThenUnhealthyAfter3_evictedAfter60s_readmittedOnSuccess() throws Exception {
        EndpointProbe tcp = EndpointProbe.tcp(Duration.ofSeconds(5));
        resolver(a -> tcp.probe(a).whenComplete((r, t) -> probed.incrementAndGet()));
        resolver.resolve(API).join();
        round(2);
        assertThat(state(up.getLocalPort())).isEqualTo(EndpointState.HEALTHY);
        assertThat(state(downPort)).isEqualTo(EndpointState.DEGRADED);
        round(2);
        assertThat(state(downPort)).isEqualTo(EndpointState.DEGRADED);
        round(2);
        assertThat(state(downPort)).isEqualTo(EndpointState.UNHEALTHY);
        for (int i = 0; i < 100; i++) {
            assertThat(resolver.pick(API).join().getPort()).isEqualTo(up.getLocalPort());
        }
        for (int s = 3; s < 60; s += 3) {
            round(2);
            assertThat(state(downPort)).isEqualTo(EndpointState.UNHEALTHY);
        }
        round(2);
        assertThat(state(downPort)).isEqualTo(EndpointState.EVICTED);
        assertThat(meters.get("unitas.resolver.endpoints").tag("state", "evicted").gauge().value()).isEqualTo(1);

        try (ServerSocket back = new ServerSocket(downPort, 50, ip("127.0.0.1"))) {
            assertThat(back.isBound()).isTrue();
            round(2);
            assertThat(state(downPort)).isEqualTo(EndpointState.HEALTHY);
        }
    }

    @Test
    void latencyWeights_comeFromTheMeasuredRtt_andShapeThePicks() {
        // The probe "takes" 9 ms or 99 ms on the controlled clock: the resolver times it with that clock.
        Map<Integer, Integer> rttMillis = Map.of(up.getLocalPort(), 9, downPort, 99);
        resolver(a -> {
            clock.advance(Duration.ofMillis(rttMillis.get(a.getPort())));
            probed.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        });
        resolver.resolve(API).join();
        round(2);
        Resolution r = resolver.resolve(API).join();
        assertThat(r.endpoints()).extracting(e -> e.address().getPort() + "=" + e.latencyWeight())
                .containsExactlyInAnyOrder(up.getLocalPort() + "=" + LatencyWeight.of(9),
                        downPort + "=" + LatencyWeight.of(99));
        int fast = 0;
        for (int i = 0; i < 5500; i++) {
            fast += resolver.pick(API).join().getPort() == up.getLocalPort() ? 1 : 0;
        }
        assertThat(fast / 5500.0).isBetween(100 / 110.0 - 0.03, 100 / 110.0 + 0.03);
    }

    @Test
    void callsReportedAsFailures_countLikeProbes() {
        resolver(a -> {
            probed.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        });
        resolver.resolve(API).join();
        InetSocketAddress down = new InetSocketAddress(ip("127.0.0.1"), downPort);
        for (int i = 0; i < 3; i++) {
            resolver.report(down, false);
        }
        assertThat(state(downPort)).isEqualTo(EndpointState.UNHEALTHY);
        resolver.report(down, true);
        assertThat(state(downPort)).isEqualTo(EndpointState.HEALTHY);
    }
}
