package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.unitas.control.client.state.RoutingState;
import io.unitas.control.client.internal.StateParts;
import io.unitas.control.client.state.StateSource;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.capacity.SpilloverBands;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.fence.Writes;
import io.unitas.core.rules.GrayRule;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.UnitRules;
import io.unitas.testkit.MutableClock;

/**
 * The gateway's per-request decision on its own, without sockets: the cn gateway of two regions, users 0~4999 in
 * unit u-cn (home cn), 5000~9999 in u-eu (home eu). Each case states one rule of {@link Dispatcher}'s contract.
 */
class DispatcherTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Topology TOPOLOGY = Topology.of("cn", "eu");
    private static final Duration HOLD_DOWN = Duration.ofSeconds(5);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final FakeTicker ticker = new FakeTicker();
    private final Dispatcher cn = new Dispatcher(config("cn", GatewayConfig.Headers.DEFAULTS, ReadOnlyPolicy.FENCE),
                                                 clock);

    static UnitRules rules() {
        return UnitRules.builder()
                        .unit("u-cn", "cn").unit("u-eu", "eu")
                        .source(KeySource.header("x-user-id"))
                        .range(0, 4999, "u-cn").range(5000, 9999, "u-eu")
                        .gray("u-cn", List.of(GrayRule.when("x-gray", "1", "1.1"), GrayRule.otherwise("1.0")))
                        .build(TOPOLOGY);
    }

    static GatewayConfig config(String region, GatewayConfig.Headers headers, ReadOnlyPolicy onReadOnly) {
        return new GatewayConfig(Region.of(region), new InetSocketAddress("127.0.0.1", 8080), null, 0,
                                 GatewayConfig.TransportKind.AUTO, true, Map.of(),
                                 new StateSource.StaticFiles(null, null, null, null, Duration.ofSeconds(1)),
                                 headers, 3, Writes.DEFAULT, GatewayConfig.Resilience.DEFAULTS, "off",
                                 new GatewayConfig.Routing(HOLD_DOWN, onReadOnly, Map.of(), List.of()),
                                 GatewayConfig.Limits.DEFAULTS);
    }

    RoutingState state(UnitRules rules, HealthSnapshot health, WriteFences fences) {
        return RoutingState.of(1, rules, health, fences, null, ticker, clock.millis(), HOLD_DOWN);
    }

    RoutingState state(HealthSnapshot health, WriteFences fences) {
        return state(rules(), health, fences);
    }

    static HealthSnapshot up(String... regions) {
        Map<Region, Boolean> flags = new LinkedHashMap<>();
        for (Region r : TOPOLOGY.regions()) {
            flags.put(r, List.of(regions).contains(r.id()));
        }
        return HealthSnapshot.ofFlags(flags);
    }

    static HealthSnapshot readOnly(Region region) {
        return HealthSnapshot.of(Map.of(CN, region.equals(CN) ? new RegionHealth(true, false, 50, 0.6, List.of())
                                                              : RegionHealth.up(),
                                        EU, region.equals(EU) ? new RegionHealth(true, false, 50, 0.6, List.of())
                                                              : RegionHealth.up()));
    }

    static WriteFences fenced(String unit, FencePolicy policy) {
        return WriteFences.of(Map.of(unit, policy));
    }

    /** A request as the proxy hands it over: its headers, which the dispatcher may edit, and the rules' view. */
    record Request(String method, String path, HttpHeaders headers, HttpRequestView view) {
        static Request of(String method, String path, String... headers) {
            DefaultHttpHeaders h = new DefaultHttpHeaders();
            for (int i = 0; i < headers.length; i += 2) {
                h.add(headers[i], headers[i + 1]);
            }
            return new Request(method, path, h, new HttpRequestView().of(
                    new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method), path, h)));
        }
    }

    Decision decide(Dispatcher d, RoutingState s, Request r, boolean trustedPeer) {
        return d.decide(s, r.method(), r.path(), r.headers(), r.view(), trustedPeer);
    }

    Decision decide(RoutingState s, Request r) {
        return decide(cn, s, r, false);
    }

    // ---- routing by key

    @Test
    void aLocalUserIsServedHere_andARemoteUserByTheirHomeRegion() {
        RoutingState s = state(up("cn", "eu"), WriteFences.none());

        Decision local = decide(s, Request.of("GET", "/orders", "x-user-id", "1500"));
        Decision remote = decide(s, Request.of("GET", "/orders", "x-user-id", "7000"));

        assertThat(local).isEqualTo(new Decision("u-cn", CN, CN, "home", "1.0", 0, null));
        assertThat(local.forwards()).isTrue();
        assertThat(remote).isEqualTo(new Decision("u-eu", EU, EU, "home", null, 0, null));
    }

    @Test
    void withoutRoutingState_everyRequestIsA503_retriedInASecond() {
        Decision d = decide(null, Request.of("GET", "/a", "x-user-id", "1500"));

        assertThat(d.forwards()).isFalse();
        assertThat(d.problem().status()).isEqualTo(503);
        assertThat(d.problem().type()).isEqualTo("no-routing-state");
        assertThat(d.problem().detail()).isEqualTo("gateway cn has no routing state yet");
        assertThat(d.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aRequestWithoutAKey_isA400_whenTheRulesSayReject() {
        Decision d = decide(state(up("cn", "eu"), WriteFences.none()), Request.of("GET", "/a"));

        assertThat(d).extracting(Decision::unit, Decision::home, Decision::target, Decision::route)
                     .containsOnlyNulls();
        assertThat(d.problem().status()).isEqualTo(400);
        assertThat(d.problem().type()).isEqualTo("missing-routing-key");
        assertThat(d.problem().detail()).isEqualTo("no routing key in the request");
    }

    @Test
    void aKeyThatNamesNoUnit_isA400_unroutableKey() {
        Decision d = decide(state(up("cn", "eu"), WriteFences.none()), Request.of("GET", "/a", "x-user-id", "abc"));

        assertThat(d.problem().status()).isEqualTo(400);
        assertThat(d.problem().type()).isEqualTo("unroutable-key");
        assertThat(d.problem().detail()).contains("abc");
        assertThat(d.unit()).isNull();
    }

    @Test
    void aDownHome_failsItsUsersOver_andNoHealthyRegionIsA503RetriedInFiveSeconds() {
        Decision failedOver = decide(state(up("cn"), WriteFences.none()), Request.of("GET", "/a", "x-user-id", "7000"));
        assertThat(failedOver).isEqualTo(new Decision("u-eu", EU, CN, "failover", null, 0, null));

        Decision none = decide(state(up(), WriteFences.none()), Request.of("GET", "/a", "x-user-id", "7000"));
        assertThat(none).extracting(Decision::unit, Decision::home, Decision::target, Decision::route)
                        .containsExactly("u-eu", EU, null, null);
        assertThat(none.problem().status()).isEqualTo(503);
        assertThat(none.problem().type()).isEqualTo("no-healthy-region");
        assertThat(none.problem().detail()).contains("home region eu").endsWith(" (unit u-eu)");
        assertThat(none.problem().retryAfter()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aReadOnlyHome_keepsItsReads_andRefusesItsWrites_namingTheUnit() {
        RoutingState s = state(readOnly(CN), WriteFences.none());

        assertThat(decide(s, Request.of("GET", "/orders", "x-user-id", "1500")).target()).isEqualTo(CN);
        Decision write = decide(s, Request.of("POST", "/orders", "x-user-id", "1500"));

        assertThat(write).extracting(Decision::unit, Decision::home, Decision::target, Decision::route)
                         .containsExactly("u-cn", CN, CN, "read_only");
        assertThat(write.problem().status()).isEqualTo(503);
        assertThat(write.problem().type()).isEqualTo("read-only");
        assertThat(write.problem().detail())
                .isEqualTo("writes for home region cn are refused: cn is read-only (unit u-cn); reads still pass");
        assertThat(write.problem().retryAfter()).isEqualTo(StateParts.DEFAULT_RETRY_AFTER);
    }

    @Test
    void aReadOnlyHome_sendsWritesToTheNextWritableRegion_underTheFailoverPolicy() {
        Dispatcher d = new Dispatcher(config("cn", GatewayConfig.Headers.DEFAULTS, ReadOnlyPolicy.FAILOVER), clock);

        Decision write = decide(d, state(readOnly(CN), WriteFences.none()),
                                Request.of("POST", "/orders", "x-user-id", "1500"), false);

        assertThat(write).isEqualTo(new Decision("u-cn", CN, EU, "write_failover", null, 0, null));
    }

    @Test
    void aUnitsOwnReadOnlyPolicy_overridesTheGatewaysDefault() {
        GatewayConfig c = config("cn", GatewayConfig.Headers.DEFAULTS, ReadOnlyPolicy.FENCE);
        Dispatcher d = new Dispatcher(c.withRouting(new GatewayConfig.Routing(
                HOLD_DOWN, ReadOnlyPolicy.FENCE, Map.of("u-cn", ReadOnlyPolicy.FAILOVER), List.of())), clock);
        RoutingState s = state(readOnly(CN), WriteFences.none());

        assertThat(decide(d, s, Request.of("POST", "/orders", "x-user-id", "1500"), false).target()).isEqualTo(EU);
        assertThat(decide(cn, s, Request.of("POST", "/orders", "x-user-id", "1500"), false).forwards()).isFalse();
    }

    // ---- stamps

    @Test
    void aClientsStamps_areRemoved_theConfiguredNamesToo_andItsOtherHeadersStay() {
        Dispatcher d = new Dispatcher(config("cn", new GatewayConfig.Headers("n-d-unit", "n-d-region", "n-d-origin",
                                                                             "n-d-hops", "x-served", "x-route"),
                                             ReadOnlyPolicy.FENCE), clock);
        Request r = Request.of("GET", "/a", "x-user-id", "1500", "X-Unitas-Anything", "1", "N-D-Region", "eu",
                               "n-d-unit", "u-eu", "n-d-origin", "eu", "n-d-hops", "1", "n-d-regio", "kept",
                               "n-d-hopz", "kept", "x-route", "kept");

        Decision decision = decide(d, state(up("cn", "eu"), WriteFences.none()), r, false);

        assertThat(r.headers().names()).containsExactlyInAnyOrder("x-user-id", "n-d-regio", "n-d-hopz", "x-route");
        assertThat(decision.route()).isEqualTo("home");
        assertThat(decision.target()).isEqualTo(CN);
    }

    @Test
    void aRequestWithoutStamps_keepsEveryHeader() {
        Request r = Request.of("GET", "/a", "x-user-id", "1500", "accept", "*/*");

        decide(state(up("cn", "eu"), WriteFences.none()), r);

        assertThat(r.headers().names()).containsExactlyInAnyOrder("x-user-id", "accept");
    }

    @Test
    void aPeersStamp_isFollowed_withoutRoutingAgain_andItsHopsCounted() {
        Request r = Request.of("GET", "/a", "x-user-id", "7000", "x-unitas-region", "cn", "x-unitas-unit", "u-cn",
                               "x-unitas-hops", "1");

        Decision d = decide(cn, state(up("cn", "eu"), WriteFences.none()), r, true);

        assertThat(d).isEqualTo(new Decision("u-eu", EU, CN, Dispatcher.PREROUTED, null, 1, null));
        assertThat(r.headers().get("x-unitas-unit")).isEqualTo("u-cn");
    }

    @Test
    void theSameStampFromAClient_isIgnored_theRequestIsRoutedByItsKey() {
        Request r = Request.of("GET", "/a", "x-user-id", "7000", "x-unitas-region", "cn", "x-unitas-hops", "1");

        assertThat(decide(cn, state(up("cn", "eu"), WriteFences.none()), r, false))
                .isEqualTo(new Decision("u-eu", EU, EU, "home", null, 0, null));
    }

    @Test
    void aPeersStampNamingNoRegion_isA400() {
        Request r = Request.of("GET", "/a", "x-user-id", "1500", "x-unitas-region", "mars", "x-unitas-hops", "1");

        Decision d = decide(cn, state(up("cn", "eu"), WriteFences.none()), r, true);

        assertThat(d).extracting(Decision::unit, Decision::home, Decision::target, Decision::route)
                     .containsExactly("u-cn", CN, null, Dispatcher.PREROUTED);
        assertThat(d.problem().status()).isEqualTo(400);
        assertThat(d.problem().type()).isEqualTo("unknown-region");
        assertThat(d.problem().detail()).isEqualTo("x-unitas-region: 'mars' names no region of the topology");
    }

    @Test
    void theHopLimit_endsALoop_with508_keepingTheUnitTheRequestClaims() {
        Request r = Request.of("GET", "/a", "x-unitas-region", "eu", "x-unitas-unit", "u-eu", "x-unitas-hops", "3");

        Decision d = decide(cn, state(up("cn", "eu"), WriteFences.none()), r, true);

        assertThat(d.unit()).isEqualTo("u-eu");
        assertThat(d.problem().status()).isEqualTo(508);
        assertThat(d.problem().type()).isEqualTo("loop-detected");
        assertThat(d.problem().detail()).isEqualTo("request passed 3 unitas gateways (limit 3)");
    }

    @Test
    void aPeersStampedWrite_isFencedByTheUnitItsKeyNames_notByTheUnitItClaims() {
        Request r = Request.of("POST", "/orders", "x-user-id", "1500", "x-unitas-region", "cn",
                               "x-unitas-unit", "u-eu", "x-unitas-hops", "1");

        Decision d = decide(cn, state(up("cn", "eu"), fenced("u-cn", FencePolicy.reject(Duration.ofSeconds(7)))),
                            r, true);

        assertThat(d.unit()).isEqualTo("u-cn");
        assertThat(d.problem().type()).isEqualTo("write-fenced");
        assertThat(d.problem().retryAfter()).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void aPeersStampedWriteWithoutAKey_passesWithoutFences_andIsRefusedWhileAnyUnitIsFenced() {
        RoutingState free = state(up("cn", "eu"), WriteFences.none());
        RoutingState fenced = state(up("cn", "eu"), fenced("u-eu", FencePolicy.reject(Duration.ofSeconds(7))));

        assertThat(decide(cn, free, stampedWithoutKey("POST"), true))
                .isEqualTo(new Decision(null, null, CN, Dispatcher.PREROUTED, null, 1, null));
        Decision refused = decide(cn, fenced, stampedWithoutKey("POST"), true);
        assertThat(refused).extracting(Decision::unit, Decision::home, Decision::target, Decision::route)
                           .containsExactly(null, null, CN, Dispatcher.PREROUTED);
        assertThat(refused.problem().status()).isEqualTo(503);
        assertThat(refused.problem().type()).isEqualTo("write-fenced");
        assertThat(refused.problem().detail()).isEqualTo("a pre-routed write whose unit cannot be told from its key "
                                                        + "(no routing key in the request) is refused while units "
                                                        + "are fenced");
        assertThat(refused.problem().retryAfter()).isEqualTo(StateParts.DEFAULT_RETRY_AFTER);
        assertThat(decide(cn, fenced, stampedWithoutKey("GET"), true).forwards()).isTrue();
    }

    private static Request stampedWithoutKey(String method) {
        return Request.of(method, "/orders", "x-unitas-region", "cn", "x-unitas-hops", "1");
    }

    // ---- fences

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"POST", "PUT", "PATCH", "DELETE"})
    void aRejectFence_refusesItsUnitsWrites_withItsRetryAfter(String method) {
        Decision d = decide(state(up("cn", "eu"), fenced("u-cn", FencePolicy.reject(Duration.ofSeconds(7)))),
                            Request.of(method, "/orders", "x-user-id", "1500"));

        assertThat(d).extracting(Decision::unit, Decision::home, Decision::target, Decision::route)
                     .containsExactly("u-cn", CN, CN, "home");
        assertThat(d.problem().status()).isEqualTo(503);
        assertThat(d.problem().type()).isEqualTo("write-fenced");
        assertThat(d.problem().detail()).isEqualTo("writes of unit u-cn are fenced while its data moves; reads still pass");
        assertThat(d.problem().retryAfter()).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void aRejectFence_letsReadsAndOtherUnitsThrough() {
        RoutingState s = state(up("cn", "eu"), fenced("u-cn", FencePolicy.reject(Duration.ofSeconds(7))));

        assertThat(decide(s, Request.of("GET", "/orders", "x-user-id", "1500")).forwards()).isTrue();
        assertThat(decide(s, Request.of("POST", "/orders", "x-user-id", "7000")).forwards()).isTrue();
    }

    @Test
    void aThrottleFence_letsTheBurstThrough_thenTellsTheWaitForTheNextToken_roundedUpToASecond() {
        RoutingState s = state(up("cn", "eu"), fenced("u-cn", FencePolicy.throttle(0.4, 2, Duration.ofSeconds(1))));
        Request write = Request.of("POST", "/o", "x-user-id", "1");

        assertThat(decide(s, write).forwards()).isTrue();
        assertThat(decide(s, write).forwards()).isTrue();
        Decision third = decide(s, write);
        assertThat(third.problem().status()).isEqualTo(503);
        assertThat(third.problem().type()).isEqualTo("write-fenced");
        assertThat(third.problem().detail())
                .isEqualTo("writes of unit u-cn are throttled while its data catches up in cn");
        assertThat(third.problem().retryAfter()).isEqualTo(Duration.ofSeconds(3)); // 2.5 s to the next token

        ticker.advance(Duration.ofMillis(2_400));
        assertThat(decide(s, write).problem().retryAfter()).isEqualTo(Duration.ofSeconds(1)); // 0.1 s, not 0

        ticker.advance(Duration.ofMillis(100));
        assertThat(decide(s, write).forwards()).isTrue();
        assertThat(decide(s, Request.of("GET", "/o", "x-user-id", "1")).forwards()).isTrue();
    }

    @Test
    void aThrottleFencesBucket_carriesOverToTheNextSnapshot_whileTheFenceIsUnchanged() {
        FencePolicy throttle = FencePolicy.throttle(0.001, 1, Duration.ofSeconds(1));
        RoutingState first = state(up("cn", "eu"), fenced("u-cn", throttle));
        Request write = Request.of("POST", "/o", "x-user-id", "1");
        assertThat(decide(first, write).forwards()).isTrue();

        RoutingState same = RoutingState.of(2, rules(), up("cn", "eu"), fenced("u-cn", throttle), first, ticker,
                                            clock.millis(), HOLD_DOWN);
        RoutingState changed = RoutingState.of(3, rules(), up("cn", "eu"),
                                               fenced("u-cn", FencePolicy.throttle(0.001, 2, Duration.ofSeconds(1))),
                                               same, ticker, clock.millis(), HOLD_DOWN);

        assertThat(decide(same, write).forwards()).isFalse();
        assertThat(decide(changed, write).forwards()).isTrue();
    }

    // ---- gray versions

    @Test
    void aGrayVersion_isPickedOnlyWhereTheUnitIsAtHomeInThisRegion() {
        RoutingState s = state(up("cn", "eu"), WriteFences.none());

        assertThat(decide(s, Request.of("GET", "/a", "x-user-id", "1500", "x-gray", "1")).version()).isEqualTo("1.1");
        assertThat(decide(s, Request.of("GET", "/a", "x-user-id", "1500")).version()).isEqualTo("1.0");

        Dispatcher eu = new Dispatcher(config("eu", GatewayConfig.Headers.DEFAULTS, ReadOnlyPolicy.FENCE), clock);
        RoutingState cnDown = state(up("eu"), WriteFences.none());
        Decision failedOver = decide(eu, cnDown, Request.of("GET", "/a", "x-user-id", "1500", "x-gray", "1"), false);
        assertThat(failedOver.target()).isEqualTo(EU);
        assertThat(failedOver.version()).isNull();

        Decision forwarded = decide(eu, s, Request.of("GET", "/a", "x-user-id", "1500", "x-gray", "1"), false);
        assertThat(forwarded.target()).isEqualTo(CN);
        assertThat(forwarded.version()).isNull();

        RoutingState moved = state(rules().remap(Map.of("u-cn", "eu")), up("cn", "eu"), WriteFences.none());
        assertThat(decide(moved, Request.of("GET", "/a", "x-user-id", "1500", "x-gray", "1")))
                .isEqualTo(new Decision("u-cn", EU, EU, "home", null, 0, null));
    }

    // ---- spillover

    /** cn, eu, us; cn's two units carry a load of 10 between them, eu has room for 2 of it, us for any. */
    static final Topology SPILL_TOPOLOGY = Topology.builder().region("cn").region("eu", 2.0).region("us").build();

    static UnitRules spillRules(boolean withLoads) {
        return UnitRules.builder()
                        .unit("u-cn1", "cn", withLoads ? 5.0 : null).unit("u-cn2", "cn", withLoads ? 5.0 : null)
                        .unit("u-eu", "eu").unit("u-us", "us")
                        .source(KeySource.header("x-user-id")).transform(KeyTransform.hashMod(100))
                        .range(0, 24, "u-cn1").range(25, 49, "u-cn2").range(50, 74, "u-eu").range(75, 99, "u-us")
                        .build(SPILL_TOPOLOGY);
    }

    static HealthSnapshot spillHealth(boolean usWritable) {
        return HealthSnapshot.of(Map.of(CN, RegionHealth.down(), EU, RegionHealth.up(),
                                        US, new RegionHealth(true, usWritable, 0, 1.0, List.of())));
    }

    /** A user of cn whose band is us's (past eu's 2 of 10). */
    static String cnUserInUsBand(UnitRules rules) {
        for (int i = 0; ; i++) {
            String id = "user-" + i;
            Request r = Request.of("GET", "/", "x-user-id", id);
            if (rules.lookup(r.view()).region().equals(CN) && SpilloverBands.position(id) > Long.MAX_VALUE / 5 * 2) {
                return id;
            }
        }
    }

    @Test
    void aDownHomesUsers_spillOverByTheirKeysBand_whenTheTopologyHasCapacitiesAndTheRulesLoads() {
        Dispatcher eu = new Dispatcher(config("eu", GatewayConfig.Headers.DEFAULTS, ReadOnlyPolicy.FENCE), clock);
        String user = cnUserInUsBand(spillRules(true));

        Decision spilled = decide(eu, state(spillRules(true), spillHealth(true), WriteFences.none()),
                                  Request.of("GET", "/cart", "x-user-id", user), false);
        Decision plain = decide(eu, state(spillRules(false), spillHealth(true), WriteFences.none()),
                                Request.of("GET", "/cart", "x-user-id", user), false);

        assertThat(spilled.target().id() + "," + spilled.route()).isEqualTo("us,spillover");
        assertThat(plain.target().id() + "," + plain.route()).isEqualTo("eu,failover");
    }

    @Test
    void aSpilledWrite_staysOnTheRoutedRegion_whereItsBandsRegionIsReadOnly() {
        Dispatcher eu = new Dispatcher(config("eu", GatewayConfig.Headers.DEFAULTS, ReadOnlyPolicy.FENCE), clock);
        String user = cnUserInUsBand(spillRules(true));

        for (boolean usWritable : new boolean[] {true, false}) {
            RoutingState s = state(spillRules(true), spillHealth(usWritable), WriteFences.none());
            Decision read = decide(eu, s, Request.of("GET", "/cart", "x-user-id", user), false);
            Decision write = decide(eu, s, Request.of("POST", "/cart", "x-user-id", user), false);

            assertThat(read.target().id() + "," + read.route()).isEqualTo("us,spillover");
            assertThat(write.target().id() + "," + write.route())
                    .isEqualTo(usWritable ? "us,spillover" : "eu,failover");
        }
    }

    @Test
    void theSpilloverBands_followARegionsHoldDown_asTheRouterDoes() {
        Dispatcher eu = new Dispatcher(config("eu", GatewayConfig.Headers.DEFAULTS, ReadOnlyPolicy.FENCE), clock);
        String user = cnUserInUsBand(spillRules(true));
        Request r = Request.of("GET", "/cart", "x-user-id", user);
        HealthSnapshot usDown = HealthSnapshot.of(Map.of(CN, RegionHealth.down(), EU, RegionHealth.up(),
                                                         US, RegionHealth.down()));
        RoutingState before = state(spillRules(true), usDown, WriteFences.none());
        // us comes back now: held down for HOLD_DOWN, so its band is not used until then
        RoutingState back = RoutingState.of(2, spillRules(true), spillHealth(true), WriteFences.none(), before,
                                            ticker, clock.millis(), HOLD_DOWN);

        assertThat(decide(eu, back, r, false).target()).isEqualTo(EU);
        clock.advance(HOLD_DOWN.minusMillis(1));
        assertThat(decide(eu, back, r, false).target()).isEqualTo(EU);
        clock.advance(Duration.ofMillis(1));
        assertThat(decide(eu, back, r, false).target().id() + "," + decide(eu, back, r, false).route())
                .isEqualTo("us,spillover");
    }
}
