package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverCooldown;
import io.unitas.core.switchover.SwitchoverPhase;
import io.unitas.testkit.MutableClock;

/**
 * Switchover commands on the control plane's service, the leader's ticks driven by the test on a controlled clock:
 * how a request is resolved, what a running switchover forbids, and what each phase does to fences and rules. The
 * fixtures' regions: cn (units u-sh, u-bj), eu (u-de), us (u-ny); cn falls back to eu, then us.
 */
class ControlServiceSwitchoverTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);
    private EmbeddedStore store;
    private ControlService service;
    private long sequence = 1;

    @BeforeEach
    void seed() {
        store = new EmbeddedStore(dir);
        service = new ControlService(store, clock, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
                                     SwitchoverCooldown.DEFAULT, Duration.ofSeconds(30), ControlService.DEFAULT_TICK);
        assertThat(service.replaceTopology("root", 0, new ControlService.Document("topology.json",
                Fixtures.TOPOLOGY), "")).isInstanceOf(ChangeResult.Applied.class);
        assertThat(service.replaceRules("root", 1, new ControlService.Document("rules.json", Fixtures.RULES), ""))
                .isInstanceOf(ChangeResult.Applied.class);
        for (String region : new String[] {"cn", "eu", "us"}) {
            report(region, true, 5_000);
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void report(String region, boolean healthy, long lagMs) {
        assertThat(service.reportHealth("agent", region, new ControlService.Document("health.json",
                Fixtures.report(region, sequence++, clock.instant(), healthy, lagMs))))
                .isInstanceOf(ChangeResult.Applied.class);
    }

    /** cn, the moving units' home, reports how far their data is behind in {@code to}. */
    private void shipped(String to, long lagMs, String... units) {
        assertThat(service.reportHealth("agent", "cn", new ControlService.Document("health.json",
                Fixtures.reportWithUnitLag("cn", sequence++, clock.instant(), to, lagMs, clock.instant(), units))))
                .isInstanceOf(ChangeResult.Applied.class);
    }

    private static ControlService.SwitchoverRequest move(List<String> units, String target) {
        return new ControlService.SwitchoverRequest(units, "", target, 500, null, null, false, false, "drill");
    }

    private static ControlService.SwitchoverRequest drain(String region, String target, boolean dryRun) {
        return new ControlService.SwitchoverRequest(List.of(), region, target, 500, null, null, dryRun, false, "");
    }

    private Switchover started(ChangeResult result) {
        assertThat(result).isInstanceOf(ChangeResult.Applied.class);
        return ((ChangeResult.Applied) result).switchover();
    }

    private static Refusal refusal(ChangeResult result) {
        assertThat(result).isInstanceOf(ChangeResult.Refused.class);
        return ((ChangeResult.Refused) result).refusal();
    }

    private Switchover current() {
        return store.current().switchover();
    }

    private String lastAuditDetail() {
        return last(service.audit(0, 1_000)).detail();
    }

    private static AuditEntry last(List<AuditEntry> entries) {
        return entries.get(entries.size() - 1);
    }

    // ---- resolving a request

    @Test
    void drainingARegion_movesAllItsUnits_toItsFirstHealthyFallback() {
        report("eu", false, 0);

        ChangeResult plan = service.startSwitchover("ops", drain("cn", "", true));

        assertThat(plan).isInstanceOfSatisfying(ChangeResult.Planned.class, p -> {
            assertThat(p.plan().target()).isEqualTo(Region.of("us"));
            assertThat(p.plan().moves()).extracting(m -> m.unit()).containsExactly("u-sh", "u-bj");
        });
    }

    @Test
    void drainingARegion_toANamedTarget_goesThere() {
        ChangeResult plan = service.startSwitchover("ops", drain("cn", "us", true));

        assertThat(plan).isInstanceOfSatisfying(ChangeResult.Planned.class,
                                                p -> assertThat(p.plan().target()).isEqualTo(Region.of("us")));
    }

    @Test
    void drainingARegionWithoutAHealthyFallback_isInvalid_forWantOfATarget() {
        report("eu", false, 0);
        report("us", false, 0);

        Refusal r = refusal(service.startSwitchover("ops", drain("cn", "", false)));

        assertThat(r.kind()).isEqualTo(Refusal.Kind.INVALID_DOCUMENT);
        assertThat(r.problems()).containsExactly(new Problem("target",
                "missing (expected: a region id, or drain with a healthy fallback)"));
        assertThat(store.current().switchover()).isNull();
    }

    @Test
    void aRequestWithBothUnitsAndDrain_orANegativeLag_listsEveryProblem() {
        ControlService.SwitchoverRequest both = new ControlService.SwitchoverRequest(List.of("u-de"), "cn", "eu",
                -1, null, null, false, false, "");

        Refusal r = refusal(service.startSwitchover("ops", both));

        assertThat(r.problems()).containsExactly(
                new Problem("drain", "given with units (expected: one of units or drain)"),
                new Problem("max_lag_ms", "-1 (expected: >= 0)"));
        assertThat(last(service.audit(0, 1_000)).action()).isEqualTo("switchover.start");
        assertThat(last(service.audit(0, 1_000)).outcome()).isEqualTo("invalid-document");
    }

    @Test
    void beforeAnyRules_aSwitchoverIsInvalid() {
        try (EmbeddedStore empty = new EmbeddedStore(dir.resolve("empty"))) {
            ControlService fresh = new ControlService(empty, clock, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
                                                      SwitchoverCooldown.DEFAULT, Duration.ofSeconds(30), ControlService.DEFAULT_TICK);

            Refusal r = refusal(fresh.startSwitchover("ops", move(List.of("u-sh"), "eu")));

            assertThat(r.problems()).containsExactly(new Problem("", "no topology and rules applied yet"));
        }
    }

    @Test
    void theDeadline_isTheOneGiven_elseTheTimeoutFromNow_elseSixtySecondsFromNow() {
        Instant given = T0.plusSeconds(600);
        List<ControlService.SwitchoverRequest> requests = List.of(
                new ControlService.SwitchoverRequest(List.of("u-sh"), "", "eu", 0, given, Duration.ofSeconds(5),
                                                     false, false, ""),
                new ControlService.SwitchoverRequest(List.of("u-bj"), "", "eu", 0, null, Duration.ofSeconds(5),
                                                     false, false, ""),
                new ControlService.SwitchoverRequest(List.of("u-ny"), "", "eu", 0, null, null, false, false, ""));
        List<Instant> expected = List.of(given, T0.plusSeconds(5), T0.plusSeconds(60));

        for (int i = 0; i < requests.size(); i++) {
            Switchover s = started(service.startSwitchover("ops", requests.get(i)));
            assertThat(s.deadline()).as(requests.get(i).toString()).isEqualTo(expected.get(i));
            assertThat(service.abortSwitchover("ops", s.id(), "")).isInstanceOf(ChangeResult.Applied.class);
        }
    }

    // ---- one at a time

    @Test
    void switchoversAreNumberedInOrder_andFoundByIdOrAsCurrent() {
        Switchover first = started(service.startSwitchover("ops", move(List.of("u-sh"), "eu")));
        service.abortSwitchover("ops", first.id(), "");
        Switchover second = started(service.startSwitchover("ops", move(List.of("u-ny"), "eu")));

        assertThat(first.id()).isEqualTo("sw-1");
        assertThat(second.id()).isEqualTo("sw-2");
        assertThat(second.requestedBy()).isEqualTo("ops");
        assertThat(second.reason()).isEqualTo("drill");
        assertThat(service.switchover("sw-2")).contains(second);
        assertThat(service.switchover("current")).contains(second);
        assertThat(service.switchover("sw-1")).isEmpty();
    }

    @Test
    void whileASwitchoverRuns_anotherOne_aDryRun_andNewTopologyOrRulesAreRefused() {
        started(service.startSwitchover("ops", move(List.of("u-sh"), "eu")));
        String running = "switchover sw-1 is fencing (expected: none running; one at a time)";

        assertThat(refusal(service.startSwitchover("ops", move(List.of("u-ny"), "eu"))).detail()).isEqualTo(running);
        assertThat(refusal(service.startSwitchover("ops", drain("us", "eu", true))).detail()).isEqualTo(running);
        Refusal topology = refusal(service.replaceTopology("root", ControlService.ANY,
                new ControlService.Document("topology.json", Fixtures.TOPOLOGY), ""));
        Refusal rules = refusal(service.replaceRules("root", ControlService.ANY,
                new ControlService.Document("rules.json", Fixtures.RULES), ""));
        assertThat(List.of(topology, rules)).allSatisfy(r -> {
            assertThat(r.kind()).isEqualTo(Refusal.Kind.CONFLICT);
            assertThat(r.detail()).isEqualTo(running);
        });
    }

    // ---- phases and their effects

    @Test
    void aSwitchover_fencesItsUnits_flipsTheirHome_onMeasuredLag_thenLiftsOnlyItsOwnFences() {
        service.addFences("ops", List.of("u-sh"), "db repair", FencePolicy.DEFAULT_RETRY_AFTER);
        started(service.startSwitchover("ops", move(List.of("u-sh", "u-bj"), "eu")));

        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.CATCHING_UP);
        assertThat(store.current().fences().get("u-sh").reason()).isEqualTo("db repair");
        assertThat(store.current().fences().get("u-bj").switchover()).isEqualTo("sw-1");
        assertThat(store.current().fences().get("u-bj").reason()).isEqualTo("switchover sw-1 to eu");
        assertThat(lastAuditDetail()).isEqualTo("sw-1 catching_up: fenced writes of u-sh, u-bj");
        AuditEntry step = last(service.audit(0, 1_000));
        assertThat(step.action()).isEqualTo("switchover.step");
        assertThat(step.target()).isEqualTo("sw-1");
        Refusal lift = refusal(service.liftFence("ops", "u-bj", ""));
        assertThat(lift.kind()).isEqualTo(Refusal.Kind.CONFLICT);
        assertThat(lift.detail()).isEqualTo("unit 'u-bj': fenced by running switchover sw-1 (abort it instead)");

        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.CATCHING_UP); // their lag to eu is unknown yet
        shipped("eu", 800, "u-sh", "u-bj");
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.CATCHING_UP); // 800 ms > max_lag 500 ms
        shipped("eu", 100, "u-sh", "u-bj");
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.FLIPPED);
        assertThat(store.current().homes()).containsEntry("u-sh", Region.of("eu")).containsEntry("u-bj",
                                                                                             Region.of("eu"))
                                           .containsEntry("u-de", Region.of("eu"))
                                           .containsEntry("u-ny", Region.of("us"));
        assertThat(store.current().fences()).containsOnlyKeys("u-sh", "u-bj");

        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.COMPLETED);
        assertThat(store.current().fences()).containsOnlyKeys("u-sh");
        long revision = store.current().revision();
        service.tick();
        assertThat(store.current().revision()).as("an ended switchover changes nothing more").isEqualTo(revision);
    }

    @Test
    void eachFence_tellsRefusedWritesToWaitAboutAsLongAsItHolds() {
        service.addFences("ops", List.of("u-ny"), "db repair", FencePolicy.DEFAULT_RETRY_AFTER);
        assertThat(store.current().fences().get("u-ny").retryAfter()).isEqualTo(FencePolicy.DEFAULT_RETRY_AFTER);

        // A switchover's fence holds at most until its deadline: 3 s from its start, 2.9 s from the fence.
        started(service.startSwitchover("ops", new ControlService.SwitchoverRequest(List.of("u-sh"), "", "eu", 500,
                null, Duration.ofSeconds(3), false, false, "")));
        clock.advance(Duration.ofMillis(100));
        service.tick();
        assertThat(store.current().fences().get("u-sh").retryAfter()).isEqualTo(Duration.ofSeconds(3));
        assertThat(StateJson.fence(store.current().fences().get("u-sh")).path("retry_after").asText())
                .isEqualTo("3s");
        assertThat(service.abortSwitchover("ops", "sw-1", "")).isInstanceOf(ChangeResult.Applied.class);

        // A promotion's fence holds two ticks (100 ms each here): its writes come back after the least, a second.
        started(service.startSwitchover("ops", new ControlService.SwitchoverRequest(List.of("u-bj"), "", "eu", 0,
                null, null, false, false, "", true)));
        service.tick();
        assertThat(store.current().fences().get("u-bj").retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(store.current().fences().get("u-ny").retryAfter()).isEqualTo(FencePolicy.DEFAULT_RETRY_AFTER);
    }

    @Test
    void aSwitchoverPastItsDeadline_rollsBack_keepingTheMapping_andLiftingItsFences() {
        ControlService.SwitchoverRequest request = new ControlService.SwitchoverRequest(List.of("u-sh"), "", "eu",
                500, null, Duration.ofSeconds(10), false, false, "");
        started(service.startSwitchover("ops", request));
        service.tick();

        clock.advance(Duration.ofSeconds(11));
        service.tick();

        assertThat(current().phase()).isEqualTo(SwitchoverPhase.ROLLED_BACK);
        assertThat(store.current().fences()).isEmpty();
        assertThat(store.current().homes()).containsEntry("u-sh", Region.of("cn"));
    }

    @Test
    void aSwitchover_isAbortedOnlyBeforeItsFlip_andOnlyByItsId() {
        started(service.startSwitchover("ops", move(List.of("u-sh"), "eu")));
        service.tick();

        Refusal other = refusal(service.abortSwitchover("ops", "sw-9", ""));
        assertThat(other.kind()).isEqualTo(Refusal.Kind.NOT_FOUND);
        assertThat(other.detail()).isEqualTo("switchover 'sw-9': not the current one");

        ChangeResult aborted = service.abortSwitchover("ops", "sw-1", "wrong unit");
        assertThat(aborted).isInstanceOfSatisfying(ChangeResult.Applied.class,
                a -> assertThat(a.switchover().phase()).isEqualTo(SwitchoverPhase.ABORTED));
        assertThat(current().outcome()).isEqualTo("aborted by ops: wrong unit");
        assertThat(store.current().fences()).isEmpty();
        assertThat(store.current().homes()).containsEntry("u-sh", Region.of("cn"));

        Refusal again = refusal(service.abortSwitchover("ops", "sw-1", ""));
        assertThat(again.kind()).isEqualTo(Refusal.Kind.CONFLICT);
        assertThat(again.detail()).isEqualTo("switchover sw-1: aborted (expected: fencing or catching_up to abort)");
    }

    @Test
    void aFlippedSwitchover_cannotBeAborted() {
        shipped("eu", 0, "u-sh");
        started(service.startSwitchover("ops", move(List.of("u-sh"), "eu")));
        service.tick();
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.FLIPPED);

        Refusal r = refusal(service.abortSwitchover("ops", "sw-1", ""));

        assertThat(r.kind()).isEqualTo(Refusal.Kind.CONFLICT);
        assertThat(r.detail()).isEqualTo("switchover sw-1: flipped (expected: fencing or catching_up to abort)");
    }

    @Test
    void aUnitThatJustMoved_mayNotMoveAgainWithinTheCooldown_evenWhenThePlanIsFine() {
        shipped("eu", 0, "u-sh");
        started(service.startSwitchover("ops", move(List.of("u-sh"), "eu")));
        service.tick();
        service.tick();
        service.tick();
        assertThat(current().phase()).isEqualTo(SwitchoverPhase.COMPLETED);

        Refusal r = refusal(service.startSwitchover("ops", move(List.of("u-sh"), "us")));

        assertThat(r.kind()).isEqualTo(Refusal.Kind.SWITCHOVER_REFUSED);
        assertThat(r.problems()).hasSize(1);
        assertThat(r.detail()).isEqualTo(r.problems().get(0).toString()).contains("u-sh");
        assertThat(r.plan()).isNull();
        assertThat(started(service.startSwitchover("ops", move(List.of("u-ny"), "eu"))).id()).isEqualTo("sw-2");
    }

    @Test
    void anOverloadingPlan_isRefusedWithThePlan_everyReasonInItsDetail() {
        Refusal r = refusal(service.startSwitchover("ops", move(List.of("u-sh", "u-bj", "u-ny"), "eu")));

        assertThat(r.kind()).isEqualTo(Refusal.Kind.SWITCHOVER_REFUSED);
        assertThat(r.plan()).isNotNull();
        assertThat(r.plan().accepted()).isFalse();
        assertThat(r.problems()).isEqualTo(r.plan().refusals());
        assertThat(r.detail()).isEqualTo(String.join("; ", r.problems().stream().map(Problem::toString).toList()));
        assertThat(store.current().switchover()).isNull();
    }

    @Test
    void aRefusedDryRun_isAuditedAsAPlan_andARefusedStartAsAStart() {
        List<String> overloading = List.of("u-sh", "u-bj", "u-ny");

        refusal(service.startSwitchover("ops", new ControlService.SwitchoverRequest(overloading, "", "eu", 500, null,
                                                                                     null, true, false, "")));
        AuditEntry plan = last(service.audit(0, 1_000));
        refusal(service.startSwitchover("ops", move(overloading, "eu")));
        AuditEntry start = last(service.audit(0, 1_000));

        assertThat(plan.action()).isEqualTo("switchover.plan");
        assertThat(start.action()).isEqualTo("switchover.start");
        assertThat(List.of(plan, start)).allSatisfy(e -> {
            assertThat(e.outcome()).isEqualTo("switchover-refused");
            assertThat(e.target()).isEqualTo("units u-sh,u-bj,u-ny -> eu");
        });
    }

    @Test
    void theLeadersTick_marksAReportOlderThanItsTtlStale_beforeItAdvancesTheSwitchover() {
        clock.advance(Duration.ofSeconds(31));

        service.tick();

        assertThat(store.current().health().values()).extracting(HealthEntry::freshness)
                                                     .containsOnly(HealthEntry.Freshness.STALE);
        assertThat(last(service.audit(0, 1_000)).action()).isEqualTo("health.freshness");
    }
}
