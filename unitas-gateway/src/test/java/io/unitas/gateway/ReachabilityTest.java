package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.Region;

/** The gateway's rule for a region it cannot reach, on a ticker the test moves. */
class ReachabilityTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");

    private final FakeTicker ticker = new FakeTicker();
    private final Upstreams.Endpoint cn1 = endpoint("127.0.0.1:1");
    private final Upstreams.Endpoint cn2 = endpoint("127.0.0.1:2");
    private final Upstreams.Endpoint eu1 = endpoint("127.0.0.1:3");
    private final Reachability reachability = new Reachability(Map.of(CN, List.of(cn1, cn2), EU, List.of(eu1)),
                                                               ticker, Duration.ofSeconds(2));

    private Upstreams.Endpoint endpoint(String hostPort) {
        return new Upstreams.Endpoint(hostPort, GatewayConfig.Protocol.HTTP1, null,
                                      GatewayConfig.Resilience.DEFAULTS, ticker);
    }

    @Test
    void neverTried_isReachable() {
        assertThat(reachability.unreachable()).isEmpty();
    }

    @Test
    void everyEndpointTriedRefused_isUnreachable_andAnUntriedOneDoesNotSaveIt() {
        cn1.refused();
        assertThat(reachability.unreachable()).containsExactly(CN);
        cn2.refused();
        assertThat(reachability.unreachable(CN)).isTrue();
        assertThat(reachability.unreachable(EU)).isFalse();
    }

    @Test
    void oneEndpointConnected_withinTheWindow_keepsTheRegionReachable() {
        cn1.connected();
        ticker.advance(Duration.ofMillis(500));
        cn2.refused();
        assertThat(reachability.unreachable(CN)).isFalse();
    }

    @Test
    void theNextConnectionMade_clearsIt() {
        cn1.refused();
        ticker.advance(Duration.ofMillis(300));
        cn1.connected();
        assertThat(reachability.unreachable(CN)).isFalse();
    }

    @Test
    void refusalsOlderThanTheWindow_sayNothing() {
        cn1.refused();
        ticker.advance(Duration.ofSeconds(2));
        assertThat(reachability.unreachable(CN)).isTrue();
        ticker.advance(Duration.ofNanos(1));
        assertThat(reachability.unreachable(CN)).isFalse();
    }

    @Test
    void aConnectionMadeBeforeTheWindow_doesNotOutweighARefusalInIt() {
        cn1.connected();
        ticker.advance(Duration.ofSeconds(3));
        cn2.refused();
        assertThat(reachability.unreachable(CN)).isTrue();
    }

    @Test
    void onlyAConnectionNobodyAnswered_counts() {
        assertThat(Reachability.nothingAnswered(new java.net.ConnectException("Connection refused"))).isTrue();
        assertThat(Reachability.nothingAnswered(new io.netty.channel.ConnectTimeoutException("timed out"))).isTrue();
        assertThat(Reachability.nothingAnswered(new java.io.IOException("Connection reset by peer"))).isFalse();
        assertThat(Reachability.nothingAnswered(new javax.net.ssl.SSLHandshakeException("bad certificate")))
                .isFalse();
    }
}
