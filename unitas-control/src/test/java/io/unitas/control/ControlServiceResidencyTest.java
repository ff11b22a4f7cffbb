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

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConsistencyFile;
import io.unitas.core.Problem;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.switchover.SwitchoverCooldown;
import io.unitas.testkit.MutableClock;

/**
 * The control plane refuses a switchover or promotion that would move a unit outside its residency group, naming the
 * rule; moves inside the group, and units without one, go ahead. The fixtures' regions: cn (u-sh, u-bj), eu (u-de),
 * us (u-ny); u-de's users stay in eu and us.
 */
class ControlServiceResidencyTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final ConsistencyContract CONTRACT = ConsistencyFile.parse(ConfigDocument.parse("consistency.yaml",
            """
            residency:
              west: [eu, us]
            units:
              u-de: west
            entities:
              accounts: {consistency: strong}
            """));

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);
    private EmbeddedStore store;
    private ControlService service;

    @BeforeEach
    void seed() {
        store = new EmbeddedStore(dir);
        service = new ControlService(store, clock, Duration.ofSeconds(30), Duration.ofSeconds(30),
                                     Duration.ofSeconds(30), SwitchoverCooldown.DEFAULT, Duration.ofSeconds(30),
                                     ControlService.DEFAULT_TICK, CONTRACT);
        assertThat(service.replaceTopology("root", 0, new ControlService.Document("topology.json",
                Fixtures.TOPOLOGY), "")).isInstanceOf(ChangeResult.Applied.class);
        assertThat(service.replaceRules("root", 1, new ControlService.Document("rules.json", Fixtures.RULES), ""))
                .isInstanceOf(ChangeResult.Applied.class);
        long sequence = 1;
        for (String region : new String[] {"cn", "eu", "us"}) {
            assertThat(service.reportHealth("agent", region, new ControlService.Document("health.json",
                    Fixtures.report(region, sequence++, clock.instant(), true, 0))))
                    .isInstanceOf(ChangeResult.Applied.class);
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static ControlService.SwitchoverRequest move(List<String> units, String target, boolean promote) {
        return new ControlService.SwitchoverRequest(units, "", target, 500, null, null, false, false, "drill",
                                                    promote);
    }

    @Test
    void switchover_outOfTheGroup_isRefused_namingTheRuleAndTheDeclaration() {
        ChangeResult result = service.startSwitchover("ops", move(List.of("u-sh", "u-de"), "cn", false));

        assertThat(result).isInstanceOfSatisfying(ChangeResult.Refused.class, r -> {
            assertThat(r.refusal().kind()).isEqualTo(Refusal.Kind.SWITCHOVER_REFUSED);
            assertThat(r.refusal().detail()).isEqualTo("units[1]: moving unit u-de from eu to cn would place it "
                    + "outside west: [eu, us] (consistency.yaml:4: units.u-de) [residency-home]");
            assertThat(r.refusal().problems()).containsExactly(new Problem("units[1]", "moving unit u-de from eu to "
                    + "cn would place it outside west: [eu, us] (consistency.yaml:4: units.u-de) [residency-home]"));
        });
        assertThat(store.current().switchover()).isNull();
        assertThat(store.current().homes().get("u-de").id()).isEqualTo("eu");
    }

    @Test
    void promotion_outOfTheGroup_isRefusedToo() {
        ChangeResult result = service.startSwitchover("ops", move(List.of("u-de"), "cn", true));

        assertThat(result).isInstanceOfSatisfying(ChangeResult.Refused.class,
                r -> assertThat(r.refusal().detail()).endsWith("[residency-home]"));
        assertThat(store.current().switchover()).isNull();
    }

    @Test
    void movesInsideTheGroup_andUnitsWithoutOne_goAhead() {
        assertThat(service.startSwitchover("ops", move(List.of("u-de"), "us", false)))
                .isInstanceOf(ChangeResult.Applied.class);
        assertThat(store.current().switchover().units()).containsExactly("u-de");
    }

    @Test
    void unitsWithoutAGroup_moveAnywhere() {
        assertThat(service.startSwitchover("ops", move(List.of("u-sh"), "eu", true)))
                .isInstanceOf(ChangeResult.Applied.class);
    }
    @Test
    void theFailoverPolicysAutomaticMove_outOfTheGroup_isRefusedAndAudited() {
        assertThat(service.replaceFailover("root", store.current().revision(), new ControlService.Document(
                "failover.yaml", "groups:\n  - {name: eu-users, home: eu, mode: automatic, after: 0s,"
                                 + " promote_after: 0s}\n"), "")).isInstanceOf(ChangeResult.Applied.class);
        // eu cannot take writes; its fallback list (the global order) starts with cn, outside u-de's group.
        assertThat(service.reportHealth("agent", "eu", new ControlService.Document("health.json",
                Fixtures.report("eu", 10, clock.instant(), false, 0)))).isInstanceOf(ChangeResult.Applied.class);

        service.tick();

        assertThat(store.current().switchover()).isNull();
        List<AuditEntry> audit = service.audit(0, 1_000);
        AuditEntry last = audit.get(audit.size() - 1);
        assertThat(last.actor()).isEqualTo(ControlService.POLICY_ACTOR);
        assertThat(last.detail()).isEqualTo("units[0]: moving unit u-de from eu to cn would place it outside west: "
                                            + "[eu, us] (consistency.yaml:4: units.u-de) [residency-home]");
    }
}
