package io.unitas.gateway;

import static io.unitas.gateway.GatewayConfig.Protocol.HTTP1;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.SessionProtocol;

import io.unitas.control.client.state.StateSource;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.fence.Writes;
import io.unitas.core.rules.GrayRule;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.UnitRules;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.Ports;

/**
 * Two regions, each with a real gateway and real backends on loopback: cn's gateway serves cn's services and
 * forwards to eu's gateway, and the other way round. Users 0~4999 live in cn (unit u-cn), 5000~9999 in eu.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewayEndToEndTest {

    static final Topology TOPOLOGY = Topology.of("cn", "eu");
    static final HealthSnapshot ALL_UP = health(true, true);
    /** The test gateways trust loopback's 127.0.0.1 (each other); a client bound to 127.0.0.2 is anyone else. */
    static final GatewayConfig.Routing ROUTING = new GatewayConfig.Routing(
            Duration.ofSeconds(5), ReadOnlyPolicy.FENCE, Map.of("u-eu", ReadOnlyPolicy.FAILOVER),
            List.of("127.0.0.1/32"));

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    final Backend cnMain = new Backend("cn-main");
    final Backend cnGray = new Backend("cn-1.1");
    final Backend euMain = new Backend("eu-main");
    FixedFeed cnFeed;
    FixedFeed euFeed;
    Gateway cn;
    Gateway eu;

    static UnitRules rules(boolean gray) {
        UnitRules.Builder b = UnitRules.builder()
                                       .unit("u-cn", "cn").unit("u-eu", "eu")
                                       .source(KeySource.header("x-user-id"))
                                       .source(KeySource.cookie("uid"))
                                       .source(KeySource.query("uid"))
                                       .source(KeySource.domainPrefix())
                                       .range(0, 4999, "u-cn").range(5000, 9999, "u-eu")
                                       .domain("shanghai", "u-cn").domain("frankfurt", "u-eu");
        if (gray) {
            b.gray("u-cn", List.of(GrayRule.when("x-gray", "1", "1.1"), GrayRule.otherwise("1.0")));
        }
        return b.build(TOPOLOGY);
    }

    static HealthSnapshot health(boolean cn, boolean eu) {
        return HealthSnapshot.ofFlags(Map.of(Region.of("cn"), cn, Region.of("eu"), eu));
    }

    @BeforeAll
    void start() throws IOException {
        int cnPort = Ports.free();
        int euPort = Ports.free();
        cnFeed = new FixedFeed(rules(true), ALL_UP);
        euFeed = new FixedFeed(rules(true), ALL_UP);
        cn = GatewayServer.start(config("cn", cnPort, Map.of(
                Region.of("cn"), new GatewayConfig.Upstream(List.of(cnMain.endpoint()), Map.of("1.1",
                                                            List.of(cnGray.endpoint())), null, HTTP1, null),
                Region.of("eu"), http1("", "127.0.0.1:" + euPort))),
                                 cnFeed, clock);
        eu = GatewayServer.start(config("eu", euPort, Map.of(
                Region.of("eu"), http1(null, euMain.endpoint()),
                Region.of("cn"), http1("", "127.0.0.1:" + cnPort))),
                                 euFeed, clock);
    }

    static GatewayConfig config(String region, int port, Map<Region, GatewayConfig.Upstream> upstreams) {
        return config(region, port, null, upstreams);
    }

    static GatewayConfig config(String region, int port, GatewayConfig.Certificate tls,
                                Map<Region, GatewayConfig.Upstream> upstreams) {
        GatewayConfig.Resilience d = GatewayConfig.Resilience.DEFAULTS;
        return config(region, port, tls, 0, upstreams,
                      resilience(Duration.ofSeconds(5), d.idleTimeout(), 1000, d.ejectionTime()));
    }

    /** Every test gateway: static state fed by the test, default headers and writes, health checked on /healthz. */
    static GatewayConfig config(String region, int port, GatewayConfig.Certificate tls, int workers,
                                Map<Region, GatewayConfig.Upstream> upstreams, GatewayConfig.Resilience resilience) {
        return config(region, port, tls, workers, GatewayConfig.TransportKind.AUTO, upstreams, resilience);
    }

    /** As above, on the socket layer {@code transport}. */
    static GatewayConfig config(String region, int port, GatewayConfig.Certificate tls, int workers,
                                GatewayConfig.TransportKind transport, Map<Region, GatewayConfig.Upstream> upstreams,
                                GatewayConfig.Resilience resilience) {
        return new GatewayConfig(Region.of(region), new InetSocketAddress("127.0.0.1", port), tls, workers, transport,
                                 true, upstreams,
                                 new StateSource.StaticFiles(null, null, null, null, Duration.ofSeconds(1)),
                                 GatewayConfig.Headers.DEFAULTS, 3, Writes.DEFAULT, resilience, "off", ROUTING,
                                 GatewayConfig.Limits.DEFAULTS);
    }

    /** Checks every second on /healthz, two attempts, ejection at half the requests failing. */
    static GatewayConfig.Resilience resilience(Duration response, Duration idle, int ejectionMinRequests,
                                               Duration ejectionTime) {
        return new GatewayConfig.Resilience("/healthz", Duration.ofSeconds(1),
                                            GatewayConfig.Resilience.DEFAULTS.connectTimeout(), response, idle, 2,
                                            0.5, ejectionMinRequests, ejectionTime);
    }

    /** An HTTP/1.1 upstream in cleartext, checked on {@code healthCheck} (null: the configured path; "": none). */
    static GatewayConfig.Upstream http1(String healthCheck, String... endpoints) {
        return new GatewayConfig.Upstream(List.of(endpoints), Map.of(), healthCheck, HTTP1, null);
    }

    @BeforeEach
    void reset() {
        cnFeed.health(ALL_UP);
        euFeed.health(ALL_UP);
        cnFeed.fences(WriteFences.none());
        euFeed.fences(WriteFences.none());
        cnFeed.rules(rules(true));
        clock.advance(ROUTING.holdDown()); // a region a test left down is back for good
    }

    @AfterAll
    void stop() {
        cn.close();
        eu.close();
        cnMain.close();
        cnGray.close();
        euMain.close();
    }

    WebClient client(SessionProtocol protocol) {
        return WebClient.builder(protocol.uriText() + "://127.0.0.1:" + cn.port()).build();
    }

    AggregatedHttpResponse get(String path, String... headers) {
        return send(HttpMethod.GET, path, "", headers);
    }

    AggregatedHttpResponse send(HttpMethod method, String path, String body, String... headers) {
        RequestHeaders h = RequestHeaders.builder(method, path).add(pairs(headers)).build();
        return client(SessionProtocol.H1C).execute(HttpRequest.of(h, HttpData.ofUtf8(body))).aggregate().join();
    }

    static List<Map.Entry<String, String>> pairs(String... kv) {
        java.util.List<Map.Entry<String, String>> out = new java.util.ArrayList<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.add(Map.entry(kv[i], kv[i + 1]));
        }
        return out;
    }

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = SessionProtocol.class, names = {"H1C", "H2C"})
    void aUserOfTheLocalRegionIsServedHereAndARemoteUserByTheirHomeRegion(SessionProtocol protocol) {
        AggregatedHttpResponse local = client(protocol).execute(
                RequestHeaders.builder(HttpMethod.GET, "/orders").add("x-user-id", "1500").build()).aggregate().join();
        assertThat(local.contentUtf8()).startsWith("backend=cn-main").contains("unit=u-cn region=cn origin=cn hops=1");
        assertThat(local.headers().get("x-unitas-served-by")).isEqualTo("cn");
        assertThat(local.headers().get("x-unitas-route")).isEqualTo("home");

        AggregatedHttpResponse remote = client(protocol).execute(
                RequestHeaders.builder(HttpMethod.GET, "/orders").add("x-user-id", "7000").build()).aggregate().join();
        assertThat(remote.contentUtf8()).startsWith("backend=eu-main").contains("unit=u-eu region=eu origin=cn hops=2");
        assertThat(remote.headers().get("x-unitas-served-by")).isEqualTo("eu");
        assertThat(remote.headers().get("x-unitas-route")).isEqualTo("home");
    }

    @Test
    void theKeyComesFromAHeaderACookieAQueryParameterOrTheDomainPrefix() {
        assertThat(get("/a", "x-user-id", "7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(get("/a", "cookie", "theme=dark; uid=7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(get("/a?uid=7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(get("/a", "host", "frankfurt.example.com").contentUtf8()).startsWith("backend=eu-main");
        assertThat(get("/a", "host", "shanghai.example.com").contentUtf8()).startsWith("backend=cn-main");
    }

    @Test
    void whenTheHomeRegionTurnsUnhealthyItsUsersFailOverAndComeBackWhenItRecovers() {
        cnFeed.health(health(true, false));
        euFeed.health(health(true, false));
        AggregatedHttpResponse failedOver = get("/a", "x-user-id", "7000");
        assertThat(failedOver.contentUtf8()).startsWith("backend=cn-main").contains("unit=u-eu region=cn");
        assertThat(failedOver.headers().get("x-unitas-route")).isEqualTo("failover");

        cnFeed.health(ALL_UP);
        euFeed.health(ALL_UP);
        clock.advance(ROUTING.holdDown().minusMillis(1));
        AggregatedHttpResponse heldDown = get("/a", "x-user-id", "7000");
        assertThat(heldDown.contentUtf8()).startsWith("backend=cn-main");
        assertThat(heldDown.headers().get("x-unitas-route")).isEqualTo("failover");

        clock.advance(Duration.ofMillis(1));
        AggregatedHttpResponse back = get("/a", "x-user-id", "7000");
        assertThat(back.contentUtf8()).startsWith("backend=eu-main");
        assertThat(back.headers().get("x-unitas-route")).isEqualTo("home");
    }

    static HealthSnapshot readOnly(String region) {
        Map<Region, RegionHealth> m = new java.util.LinkedHashMap<>();
        for (String r : List.of("cn", "eu")) {
            m.put(Region.of(r), r.equals(region)
                    ? new RegionHealth(true, false, 50, 0.6, List.of("postgres: read-only")) : RegionHealth.up());
        }
        return HealthSnapshot.of(m);
    }

    @Test
    void aReadOnlyHomeKeepsServingReads_andFencesWritesWithRetryAfter() {
        cnFeed.health(readOnly("cn"));
        euFeed.health(readOnly("cn"));

        assertThat(get("/orders", "x-user-id", "1500").contentUtf8()).startsWith("backend=cn-main");
        AggregatedHttpResponse write = send(HttpMethod.POST, "/orders", "{}", "x-user-id", "1500");
        assertThat(write.status().code()).isEqualTo(503);
        assertThat(write.headers().get("retry-after")).isEqualTo("5");
        assertThat(write.contentUtf8()).contains("urn:unitas:problem:read-only")
                                       .contains("writes for home region cn are refused: cn is read-only (unit u-cn)");
        assertThat(send(HttpMethod.POST, "/orders", "{}", "x-user-id", "7000").status().code()).isEqualTo(200);
    }

    @Test
    void aReadOnlyHome_sendsWritesToTheFallback_whenTheUnitsPolicyIsFailover() {
        cnFeed.health(readOnly("eu"));
        euFeed.health(readOnly("eu"));

        assertThat(get("/orders", "x-user-id", "7000").contentUtf8()).startsWith("backend=eu-main");
        AggregatedHttpResponse write = send(HttpMethod.POST, "/orders", "{}", "x-user-id", "7000");
        assertThat(write.contentUtf8()).startsWith("backend=cn-main").contains("unit=u-eu region=cn");
        assertThat(write.headers().get("x-unitas-route")).isEqualTo("write_failover");
    }

    /** One HTTP/1.1 exchange over a socket bound to {@code from} (127.0.0.2: not a trusted peer); status and body. */
    String[] rawFrom(String from, String method, String path, String... headers) throws IOException {
        return raw(from, cn.port(), method, path, headers);
    }

    /** One HTTP/1.1 exchange with the gateway on {@code port} over a socket bound to {@code from}; status and body. */
    static String[] raw(String from, int port, String method, String path, String... headers) throws IOException {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port));
            StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\nhost: shop\r\n"
                                                  + "connection: close\r\ncontent-length: 2\r\n");
            for (int i = 0; i < headers.length; i += 2) {
                req.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            }
            socket.getOutputStream().write((req + "\r\n{}").getBytes(StandardCharsets.US_ASCII));
            String res = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new String[] {res.substring(9, 12), res.substring(res.indexOf("\r\n\r\n") + 4)};
        }
    }

    @Test
    void aRoutingKeyGivenTwice_isRefused_soTheServiceCannotReadTheOtherValue() throws IOException {
        String[] twice = rawFrom("127.0.0.2", "POST", "/orders", "x-user-id", "7000", "x-user-id", "1500");
        String[] disagreeing = rawFrom("127.0.0.2", "POST", "/orders", "x-user-id", "7000", "cookie", "uid=1500");

        assertThat(twice[0]).isEqualTo("400");
        assertThat(twice[1]).contains("ambiguous-routing-key")
                            .contains("routing key header x-user-id given more than once");
        assertThat(disagreeing[0]).isEqualTo("400");
        assertThat(disagreeing[1]).contains("'7000' from header x-user-id and '1500' from cookie uid");
    }

    @Test
    void aConnectionHeaderNamingTheRoutingKeyOrAStamp_removesNeither() throws IOException {
        String[] sent = rawFrom("127.0.0.2", "GET", "/a", "connection", "x-user-id, x-unitas-region, x-drop",
                                "x-user-id", "7000", "x-drop", "1");

        assertThat(sent[0]).isEqualTo("200");
        assertThat(sent[1]).startsWith("backend=eu-main").contains("region=eu").contains("user=[7000]");
    }

    @Test
    void aClientsStampIsRemoved_soItCannotWalkPastAFence() throws IOException {
        cnFeed.fences(WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(7)))));

        String[] stamped = rawFrom("127.0.0.2", "POST", "/orders", "x-user-id", "1500", "x-unitas-region", "cn",
                                   "x-unitas-unit", "u-eu", "x-unitas-hops", "1");

        assertThat(stamped[0]).isEqualTo("503");
        assertThat(stamped[1]).contains("write-fenced").contains("u-cn");
    }

    @Test
    void aClientsStampNamingAnUnhealthyRegionIsIgnored_theRequestIsRoutedByItsKey() throws IOException {
        cnFeed.health(health(true, false));
        euFeed.health(health(true, false));

        String[] stamped = rawFrom("127.0.0.2", "GET", "/a", "x-user-id", "1500", "x-unitas-region", "eu",
                                   "x-unitas-origin", "eu", "X-Unitas-Anything", "1");

        assertThat(stamped[0]).isEqualTo("200");
        assertThat(stamped[1]).startsWith("backend=cn-main").contains("unit=u-cn region=cn origin=cn hops=1");
    }

    @Test
    void aPeersStampedWrite_isFencedByTheUnitItsKeyNames_notByTheUnitItClaims() {
        cnFeed.fences(WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(7)))));

        AggregatedHttpResponse res = send(HttpMethod.POST, "/orders", "{}", "x-user-id", "1500",
                                          "x-unitas-region", "cn", "x-unitas-unit", "u-eu", "x-unitas-hops", "1");

        assertThat(res.status().code()).isEqualTo(503);
        assertThat(res.contentUtf8()).contains("writes of unit u-cn are fenced");
    }

    @Test
    void aPeersStampedWriteWithoutAKey_isRefusedWhileAnyUnitIsFenced() {
        assertThat(send(HttpMethod.POST, "/orders", "{}", "x-unitas-region", "cn", "x-unitas-hops", "1")
                           .status().code()).isEqualTo(200);
        cnFeed.fences(WriteFences.of(Map.of("u-eu", FencePolicy.reject(Duration.ofSeconds(7)))));

        AggregatedHttpResponse res = send(HttpMethod.POST, "/orders", "{}", "x-unitas-region", "cn",
                                          "x-unitas-hops", "1");

        assertThat(res.status().code()).isEqualTo(503);
        assertThat(res.contentUtf8()).contains("cannot be told from its key");
        assertThat(get("/orders", "x-unitas-region", "cn", "x-unitas-hops", "1").status().code()).isEqualTo(200);
    }

    @Test
    void noHealthyRegionIsA503Problem() {
        cnFeed.health(health(false, false));
        AggregatedHttpResponse res = get("/a", "x-user-id", "7000");
        assertThat(res.status().code()).isEqualTo(503);
        assertThat(res.contentType()).isEqualTo(MediaType.parse("application/problem+json"));
        assertThat(res.contentUtf8()).contains("\"type\":\"urn:unitas:problem:no-healthy-region\"")
                                     .contains("home region eu");
    }

    @Test
    void aRequestWithoutAKeyIsRejectedWhenTheRulesSayReject() {
        AggregatedHttpResponse res = get("/a");
        assertThat(res.status().code()).isEqualTo(400);
        assertThat(res.contentUtf8()).contains("missing-routing-key");
    }

    @Test
    void aFenceRefusesWritesOfItsUnitAndLetsReadsAndOtherUnitsThrough() {
        cnFeed.fences(WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(7)))));
        AggregatedHttpResponse write = send(HttpMethod.POST, "/orders", "{}", "x-user-id", "1500");
        assertThat(write.status().code()).isEqualTo(503);
        assertThat(write.headers().get("retry-after")).isEqualTo("7");
        assertThat(write.contentUtf8()).contains("write-fenced").contains("u-cn");
        for (HttpMethod m : List.of(HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE)) {
            assertThat(send(m, "/orders", "", "x-user-id", "1500").status().code()).isEqualTo(503);
        }
        assertThat(get("/orders", "x-user-id", "1500").status().code()).isEqualTo(200);
        assertThat(send(HttpMethod.POST, "/orders", "{}", "x-user-id", "7000").status().code()).isEqualTo(200);
    }

    @Test
    void aPostToAReadPathPassesTheFence() {
        cnFeed.fences(WriteFences.of(Map.of("u-cn", FencePolicy.reject(Duration.ofSeconds(7))),
                                     new Writes(Writes.DEFAULT_METHODS, List.of("/search*", "/graphql/query"))));

        assertThat(send(HttpMethod.POST, "/search/orders", "{}", "x-user-id", "1500").status().code()).isEqualTo(200);
        assertThat(send(HttpMethod.POST, "/graphql/query", "{}", "x-user-id", "1500").status().code())
                .isEqualTo(200);
        assertThat(send(HttpMethod.POST, "/graphql/mutation", "{}", "x-user-id", "1500").status().code())
                .isEqualTo(503);
        assertThat(send(HttpMethod.POST, "/orders", "{}", "x-user-id", "1500").status().code()).isEqualTo(503);
    }

    @Test
    void aThrottleFenceLetsTheBurstThroughAndRefusesTheRest() {
        cnFeed.fences(WriteFences.of(Map.of("u-cn", FencePolicy.throttle(0.001, 2, Duration.ofSeconds(1)))));
        assertThat(send(HttpMethod.POST, "/o", "", "x-user-id", "1").status().code()).isEqualTo(200);
        assertThat(send(HttpMethod.POST, "/o", "", "x-user-id", "1").status().code()).isEqualTo(200);
        AggregatedHttpResponse third = send(HttpMethod.POST, "/o", "", "x-user-id", "1");
        assertThat(third.status().code()).isEqualTo(503);
        assertThat(third.contentUtf8()).contains("throttled");
        assertThat(get("/o", "x-user-id", "1").status().code()).isEqualTo(200);
    }

    @Test
    void aPreRoutedRequestIsNotRoutedAgainAndTheHopLimitEndsLoops() {
        AggregatedHttpResponse pre = get("/a", "x-user-id", "7000", "x-unitas-region", "cn",
                                         "x-unitas-unit", "u-eu", "x-unitas-origin", "eu", "x-unitas-hops", "1");
        assertThat(pre.contentUtf8()).startsWith("backend=cn-main").contains("unit=u-eu region=cn origin=eu hops=2");

        AggregatedHttpResponse loop = get("/a", "x-unitas-region", "eu", "x-unitas-hops", "3");
        assertThat(loop.status().code()).isEqualTo(508);
        assertThat(loop.contentUtf8()).contains("loop-detected");
    }

    @Test
    void grayRulesPickAVersionAtHomeAndVanishWhenTheUnitMoves() {
        assertThat(get("/a", "x-user-id", "1500", "x-gray", "1").contentUtf8()).startsWith("backend=cn-1.1");
        assertThat(get("/a", "x-user-id", "1500").contentUtf8()).startsWith("backend=cn-main");

        UnitRules moved = rules(true).remap(Map.of("u-cn", "eu"));
        cnFeed.rules(moved);
        euFeed.rules(moved);
        assertThat(get("/a", "x-user-id", "1500", "x-gray", "1").contentUtf8()).startsWith("backend=eu-main");
        cnFeed.rules(rules(true));
        euFeed.rules(rules(true));
    }

    @Test
    void bodiesStreamThroughBothHopsWhole() {
        String big = "x".repeat(3 * 1024 * 1024);
        assertThat(send(HttpMethod.POST, "/upload", big, "x-user-id", "7000").contentUtf8())
                .startsWith("backend=eu-main").endsWith("body=" + big.length());
    }

    @Test
    void metricsShowRegionByUserHome() {
        get("/a", "x-user-id", "7000");
        String metrics = client(SessionProtocol.H1C).get("/metrics").aggregate().join().contentUtf8();
        assertThat(metrics).contains("unitas_gateway_requests_total{gateway_region=\"cn\",home_region=\"eu\","
                                     + "route=\"home\",status_class=\"2xx\",target_region=\"eu\"}")
                           .contains("unitas_gateway_request_duration_seconds_bucket");
    }
}
