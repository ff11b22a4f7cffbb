package io.unitas.core.consistency;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.unitas.core.Region;
import io.unitas.core.ServiceKind;
import io.unitas.core.Topology;

/** Seed 003's decision tree, the service kinds and residency, one rule per case on a fixed topology. */
class ConsistencyCheckTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region EU2 = Region.of("eu2");
    private static final Location HERE = new Location("c.yaml", 1, "entities.x");

    /** cn (center), eu and eu2 back each other up, us falls to eu then cn. */
    private static final Topology TOPOLOGY = Topology.builder().region("cn").region("eu").region("eu2").region("us")
            .fallback("eu", List.of("eu2")).fallback("eu2", List.of("eu")).fallback("us", List.of("eu", "cn"))
            .center("cn").build();
    private static final Map<String, Region> HOMES = Map.of("u-cn", CN, "u-eu", EU, "u-us", Region.of("us"));
    private static final ResidencyGroup EU_DATA = new ResidencyGroup("eu-personal-data", List.of(EU, EU2), HERE);

    private static Decl decl(ServiceKind kind, ConsistencyLevel level) {
        return new Decl(kind, level);
    }

    /** A declaration under construction: a clean core strong entity unless told otherwise. */
    private static final class Decl {
        ServiceKind kind;
        ConsistencyLevel level;
        Duration budget;
        boolean money;
        boolean idempotent;
        MergePolicyName merge;
        WriteScope writes;
        Region region;
        String residency;

        Decl(ServiceKind kind, ConsistencyLevel level) {
            this.kind = kind;
            this.level = level;
        }

        Decl idempotent() {
            this.idempotent = true;
            return this;
        }

        Declaration build() {
            Map<String, Location> fields = new HashMap<>();
            int line = 2;
            for (String f : List.of("kind", "consistency", "staleness_budget", "writes", "region", "residency")) {
                fields.put(f, new Location("c.yaml", line++, "entities.x." + f));
            }
            return new Declaration("x", kind, level, budget, money, idempotent, merge,
                                   writes == null ? WriteScope.defaultFor(kind) : writes, region, residency, HERE,
                                   fields);
        }
    }

    private static List<Violation> check(Decl d, Optional<MeasuredLag> lag) {
        ConsistencyContract contract = new ConsistencyContract(List.of(d.build()), List.of(EU_DATA), List.of());
        assertThat(contract.problems(TOPOLOGY, HOMES.keySet())).isEmpty();
        return ConsistencyCheck.check(contract, ConsistencyCheck.Environment.of(TOPOLOGY, Locator.of("t.yaml"),
                                                                                HOMES, lag));
    }

    private static List<Violation> check(Decl d) {
        return check(d, Optional.empty());
    }

    private static List<String> ids(List<Violation> found) {
        return found.stream().map(v -> v.rule().id()).toList();
    }

    @Test
    void cleanDeclarations_breakNothing() {
        assertThat(check(decl(ServiceKind.CORE, ConsistencyLevel.STRONG))).isEmpty();
        Decl cart = decl(ServiceKind.CORE, ConsistencyLevel.EVENTUAL);
        cart.merge = MergePolicyName.OR_MAP;
        cart.writes = WriteScope.ANY;
        cart.residency = "eu-personal-data";
        assertThat(check(cart)).isEmpty();
        assertThat(check(decl(ServiceKind.GLOBAL, ConsistencyLevel.STRONG))).isEmpty();
        assertThat(check(decl(ServiceKind.SHARED, ConsistencyLevel.EVENTUAL).idempotent())).isEmpty();
    }

    @Test
    @DisplayName("money must be strong: bounded staleness breaks money-strong at the consistency key")
    void money_notStrong() {
        Decl d = decl(ServiceKind.CORE, ConsistencyLevel.BOUNDED_STALENESS);
        d.budget = Duration.ofSeconds(1);
        d.money = true;
        List<Violation> found = check(d);
        assertThat(ids(found)).containsExactly("money-strong");
        assertThat(found.get(0).where().path()).isEqualTo("entities.x.consistency");
        assertThat(found.get(0).toString())
                .isEqualTo("c.yaml:3: entities.x.consistency: x handles money or legal records but is "
                           + "bounded-staleness (expected: strong) [money-strong]");
    }

    @Test
    void money_writtenAnywhere_breaksOneWriter() {
        Decl d = decl(ServiceKind.CORE, ConsistencyLevel.STRONG);
        d.money = true;
        d.writes = WriteScope.ANY;
        d.merge = MergePolicyName.PN_COUNTER;
        assertThat(ids(check(d))).containsExactly("money-one-writer");
    }

    @Test
    void eventual_needsMergeOrIdempotence() {
        assertThat(ids(check(decl(ServiceKind.CORE, ConsistencyLevel.EVENTUAL)))).containsExactly("eventual-converges");
        assertThat(check(decl(ServiceKind.CORE, ConsistencyLevel.EVENTUAL).idempotent())).isEmpty();
        Decl merged = decl(ServiceKind.CORE, ConsistencyLevel.EVENTUAL);
        merged.merge = MergePolicyName.LWW;
        assertThat(check(merged)).isEmpty();
    }

    @Test
    void anyRegionWrites_needAMergePolicy_evenWhenIdempotent() {
        Decl d = decl(ServiceKind.CORE, ConsistencyLevel.EVENTUAL).idempotent();
        d.writes = WriteScope.ANY;
        assertThat(ids(check(d))).containsExactly("multi-writer-merge");
    }

    @Test
    void stalenessBudget_belowTheLargestMeasuredLag_isAViolation_equalIsNot() {
        Decl d = decl(ServiceKind.CORE, ConsistencyLevel.BOUNDED_STALENESS);
        d.budget = Duration.ofMillis(500);
        MeasuredLag lag = new MeasuredLag(List.of(new MeasuredLag.Sample("unit u-cn to eu", 120),
                                                  new MeasuredLag.Sample("unit u-eu to eu2", 800)));
        List<Violation> found = check(d, Optional.of(lag));
        assertThat(ids(found)).containsExactly("staleness-budget");
        assertThat(found.get(0).message()).contains("unit u-eu to eu2 lags 800 ms").contains("500 ms");
        d.budget = Duration.ofMillis(800);
        assertThat(check(d, Optional.of(lag))).isEmpty();
        d.budget = Duration.ofMillis(1);
        assertThat(check(d)).as("no lag given: the rule cannot be applied").isEmpty();
    }

    @Test
    void shared_writtenOutsideTheCenter() {
        Decl d = decl(ServiceKind.SHARED, ConsistencyLevel.STRONG);
        d.writes = WriteScope.HOME;
        assertThat(ids(check(d))).containsExactly("shared-writes-center");
    }

    @Test
    void global_declaredOutsideTheCenter_orWrittenOutsideIt_orWithoutACenter() {
        Decl d = decl(ServiceKind.GLOBAL, ConsistencyLevel.STRONG);
        d.region = EU;
        List<Violation> found = check(d);
        assertThat(ids(found)).containsExactly("global-in-center");
        assertThat(found.get(0).where().path()).isEqualTo("entities.x.region");
        d.region = CN;
        assertThat(check(d)).isEmpty();
        d.writes = WriteScope.HOME;
        assertThat(ids(check(d))).containsExactly("global-in-center");
        ConsistencyContract contract = new ConsistencyContract(
                List.of(decl(ServiceKind.GLOBAL, ConsistencyLevel.STRONG).build()), List.of(), List.of());
        assertThat(ids(ConsistencyCheck.check(contract, ConsistencyCheck.Environment.of(
                Topology.of("cn", "eu"), Locator.of("t.yaml"), Map.of(), Optional.empty()))))
                .containsExactly("global-in-center");
    }

    @Test
    void unitResidency_homeOutsideTheGroup() {
        List<Violation> found = ConsistencyCheck.check(
                new ConsistencyContract(List.of(), List.of(EU_DATA), List.of(new UnitResidency("u-cn",
                        "eu-personal-data", HERE))),
                ConsistencyCheck.Environment.of(TOPOLOGY, Locator.of("t.yaml"), HOMES, Optional.empty()));
        assertThat(ids(found)).containsExactly("residency-home");
        assertThat(found.get(0).message()).isEqualTo("unit u-cn is homed in cn, outside eu-personal-data: [eu, eu2]");
    }

    @Test
    @DisplayName("an explicit fallback list that leaves the group is pointed at, entry by entry")
    void unitResidency_explicitFallbackLeavesTheGroup() {
        Topology t = Topology.builder().region("cn").region("eu").region("eu2").fallback("eu", List.of("eu2", "cn"))
                .fallback("eu2", List.of("eu")).center("cn").build();
        List<Violation> found = ConsistencyCheck.check(
                new ConsistencyContract(List.of(), List.of(EU_DATA), List.of(new UnitResidency("u-eu",
                        "eu-personal-data", HERE))),
                ConsistencyCheck.Environment.of(t, path -> new Location("t.yaml", 7, path), HOMES, Optional.empty()));
        assertThat(ids(found)).containsExactly("residency-fallback");
        assertThat(found.get(0).where()).isEqualTo(new Location("t.yaml", 7, "fallback.eu[1]"));
    }

    @Test
    @DisplayName("a home without a fallback list fails over to every region, so a residency group needs one")
    void entityResidency_defaultFallbackLeavesTheGroup() {
        Topology t = Topology.builder().region("cn").region("eu").region("eu2").fallback("eu", List.of("eu2"))
                .center("cn").build();
        Decl d = decl(ServiceKind.CORE, ConsistencyLevel.STRONG);
        d.residency = "eu-personal-data";
        ConsistencyContract contract = new ConsistencyContract(List.of(d.build()), List.of(EU_DATA), List.of());
        List<Violation> found = ConsistencyCheck.check(contract, ConsistencyCheck.Environment.of(
                t, Locator.of("t.yaml"), HOMES, Optional.empty()));
        assertThat(ids(found)).containsExactly("residency-fallback");
        assertThat(found.get(0).where().path()).isEqualTo("entities.x.residency");
        assertThat(found.get(0).message()).contains("eu2, which has no fallback list").contains("could place it in cn, outside");
    }

    @Test
    void residency_ofGlobalAndSharedEntities() {
        Decl global = decl(ServiceKind.GLOBAL, ConsistencyLevel.STRONG);
        global.residency = "eu-personal-data";
        assertThat(ids(check(global))).containsExactly("residency-home");
        Decl shared = decl(ServiceKind.SHARED, ConsistencyLevel.EVENTUAL).idempotent();
        shared.residency = "eu-personal-data";
        assertThat(check(shared)).singleElement().satisfies(v -> {
            assertThat(v.rule()).isEqualTo(Rule.RESIDENCY_HOME);
            assertThat(v.message()).contains("including cn, us outside");
        });
    }

    @Test
    void contractProblems_nameEveryUnknownAndDuplicate() {
        Declaration d = decl(ServiceKind.CORE, ConsistencyLevel.STRONG).build();
        Declaration withGroup = new Declaration("x", ServiceKind.GLOBAL, ConsistencyLevel.STRONG, null, false, false,
                null, WriteScope.CENTER, Region.of("mars"), "nowhere", new Location("d.yaml", 9, "entities.x"),
                Map.of());
        ConsistencyContract contract = new ConsistencyContract(List.of(d, withGroup),
                List.of(new ResidencyGroup("g", List.of(Region.of("pluto")), new Location("d.yaml", 2, "residency.g"))),
                List.of(new UnitResidency("u-nope", "g", new Location("d.yaml", 4, "units.u-nope"))));
        assertThat(contract.problems(TOPOLOGY, Set.of("u-cn", "u-eu")).stream().map(ContractProblem::toString))
                .containsExactly(
                        "d.yaml:9: entities.x: 'x' declared twice (first at c.yaml:1: entities.x)",
                        "d.yaml:9: entities.x: unknown residency group 'nowhere' (expected: one of g)",
                        "d.yaml:9: entities.x: unknown region 'mars' (expected one of: cn, eu, eu2, us)",
                        "d.yaml:2: residency.g[0]: unknown region 'pluto' (expected one of: cn, eu, eu2, us)",
                        "d.yaml:4: units.u-nope: unknown unit 'u-nope' (expected one of: u-cn, u-eu)");
    }
    @Test
    @DisplayName("a move of a unit out of its residency group is refused, naming the rule and where the group is")
    void move_outsideTheGroup_isAViolation_insideIsNot() {
        Location unitAt = new Location("c.yaml", 4, "units.u-eu");
        ConsistencyContract contract = new ConsistencyContract(List.of(), List.of(EU_DATA),
                List.of(new UnitResidency("u-eu", "eu-personal-data", unitAt)));
        assertThat(ConsistencyCheck.move(contract, "u-eu", EU, EU2)).isEmpty();
        assertThat(ConsistencyCheck.move(contract, "u-eu", EU, CN)).hasValueSatisfying(v -> {
            assertThat(v.rule()).isEqualTo(Rule.RESIDENCY_HOME);
            assertThat(v.where()).isEqualTo(unitAt);
            assertThat(v.message()).isEqualTo("moving unit u-eu from eu to cn would place it outside "
                                              + "eu-personal-data: [eu, eu2]");
        });
        assertThat(ConsistencyCheck.move(contract, "u-cn", CN, EU)).as("no group: free to move").isEmpty();
    }

    @Test
    void move_ofAUnitHomedInACoreEntitysGroup_staysInIt() {
        Decl d = decl(ServiceKind.CORE, ConsistencyLevel.STRONG);
        d.residency = "eu-personal-data";
        ConsistencyContract contract = new ConsistencyContract(List.of(d.build()), List.of(EU_DATA), List.of());
        assertThat(ConsistencyCheck.move(contract, "u-eu", EU, CN)).hasValueSatisfying(v -> {
            assertThat(v.message()).isEqualTo("moving unit u-eu from eu to cn would place x outside "
                                              + "eu-personal-data: [eu, eu2]");
            assertThat(v.where().path()).isEqualTo("entities.x.residency");
        });
        assertThat(ConsistencyCheck.move(contract, "u-cn", CN, EU)).as("homed outside the group").isEmpty();
    }
}
