package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.ServiceKind;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.consistency.ConsistencyLevel;
import io.unitas.core.consistency.Declaration;
import io.unitas.core.consistency.Location;
import io.unitas.core.consistency.MeasuredLag;
import io.unitas.core.consistency.MergePolicyName;
import io.unitas.core.consistency.WriteScope;

/** The consistency contract's two forms, and measured lag, read into core types with located problems. */
class ConsistencyFileTest {

    private static ConsistencyContract parse(String name, String text) {
        return ConsistencyFile.parse(ConfigDocument.parse(name, text));
    }

    @Test
    void ownForm_readsEveryKey_withDefaultsByKind() {
        ConsistencyContract c = parse("c.yaml", """
                residency:
                  eu-personal-data: [eu, eu2]
                units:
                  u-paris: eu-personal-data
                entities:
                  cart:
                    consistency: eventual
                    merge: or-map
                    writes: any
                    idempotent: true
                    residency: eu-personal-data
                services:
                  prices:
                    kind: shared
                    consistency: bounded-staleness
                    staleness_budget: 5s
                """);
        Declaration cart = c.declarations().get(0);
        assertThat(cart.kind()).isEqualTo(ServiceKind.CORE);
        assertThat(cart.merge()).isEqualTo(MergePolicyName.OR_MAP);
        assertThat(cart.writes()).isEqualTo(WriteScope.ANY);
        assertThat(cart.idempotent()).isTrue();
        assertThat(cart.residency()).isEqualTo("eu-personal-data");
        assertThat(cart.where()).isEqualTo(new Location("c.yaml", 6, "entities.cart"));
        assertThat(cart.at("writes")).isEqualTo(new Location("c.yaml", 9, "entities.cart.writes"));
        Declaration prices = c.declarations().get(1);
        assertThat(prices.level()).isEqualTo(ConsistencyLevel.BOUNDED_STALENESS);
        assertThat(prices.budget()).isEqualTo(Duration.ofSeconds(5));
        assertThat(prices.writes()).as("shared data is written in the center unless told").isEqualTo(WriteScope.CENTER);
        assertThat(c.groups()).singleElement().hasToString("eu-personal-data: [eu, eu2]");
        assertThat(c.unitResidencies()).singleElement()
                .satisfies(u -> assertThat(u.where()).isEqualTo(new Location("c.yaml", 4, "units.u-paris")));
    }

    @Test
    void emptyLevelOrBudget_isAProblemAtItsKey_notADroppedDeclarationOrACrash() {
        assertThatThrownBy(() -> parse("c.yaml", """
                entities:
                  prices:
                    consistency: bounded-staleness
                    staleness_budget: ~
                  cart:
                    consistency:
                """))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("c.yaml:4: entities.prices.staleness_budget: empty (expected: with "
                                      + "bounded-staleness, how stale a read may be, like 500ms or 5s)")
                .hasMessageContaining("c.yaml:6: entities.cart.consistency: empty (expected: strong, "
                                      + "bounded-staleness or eventual)");
    }

    @Test
    void json_isReadToo() {
        ConsistencyContract c = parse("c.json", "{\"entities\": {\"orders\": {\"consistency\": \"strong\","
                                                + " \"money_or_legal\": true}}}");
        assertThat(c.declarations()).singleElement().satisfies(d -> assertThat(d.moneyOrLegal()).isTrue());
    }

    @Test
    void openApi_methodsIdempotentByRfc9110_unlessSaid_andUndeclaredOperationsSkipped() {
        ConsistencyContract c = parse("api.yaml", """
                openapi: 3.1.0
                paths:
                  /cart/{user}:
                    get:
                      x-consistency-level: eventual
                    post:
                      x-consistency-level: eventual
                    put:
                      x-consistency-level: eventual
                      x-idempotent: false
                    delete:
                      summary: not declared
                """);
        assertThat(c.declarations()).extracting(Declaration::name, Declaration::idempotent).containsExactly(
                org.assertj.core.groups.Tuple.tuple("GET /cart/{user}", true),
                org.assertj.core.groups.Tuple.tuple("POST /cart/{user}", false),
                org.assertj.core.groups.Tuple.tuple("PUT /cart/{user}", false));
        assertThat(c.declarations().get(0).at("consistency").line()).isEqualTo(5);
    }

    @Test
    void openApi_extensionWithoutLevel_isAProblemNamingTheExtension() {
        assertThatThrownBy(() -> parse("api.yaml", """
                openapi: 3.1.0
                paths:
                  /pay:
                    post:
                      x-money-or-legal: true
                """)).isInstanceOf(ConfigException.class)
                .hasMessage("api.yaml:4: paths./pay.post: x-consistency-level missing (expected: strong, "
                            + "bounded-staleness or eventual)");
    }

    @Test
    void emptyDocuments_sayWhatIsExpected() {
        assertThatThrownBy(() -> parse("c.yaml", "residency: {}\n"))
                .hasMessage("c.yaml:1: no entities or services (expected: at least one declaration)");
        assertThatThrownBy(() -> parse("c.yaml", "- a\n"))
                .hasMessageStartingWith("c.yaml:1: not a mapping (expected: entities or services");
    }

    @Test
    void lag_fromTheWholeStateOrItsHealthPart() {
        String health = """
                  eu:
                    replication_lag_ms: 40
                    unit_lag:
                      u-paris: {us: {lag_ms: 800, measured_at: "2026-12-04T20:00:00Z"}}
                  us: {replication_lag_ms: -1}
                """;
        MeasuredLag part = MeasuredLagFile.parse(ConfigDocument.parse("h.yaml", health));
        MeasuredLag whole = MeasuredLagFile.parse(ConfigDocument.parse("s.yaml", "revision: 7\nhealth:\n" + health));
        assertThat(part).isEqualTo(whole);
        assertThat(part.samples()).containsExactly(new MeasuredLag.Sample("the database of eu", 40),
                                                   new MeasuredLag.Sample("unit u-paris from eu to us", 800));
    }

    @Test
    void lag_everyProblemAtOnce() {
        assertThatThrownBy(() -> MeasuredLagFile.parse(ConfigDocument.parse("h.yaml", """
                eu:
                  replication_lag_ms: -5
                  unit_lag:
                    u-paris: {us: {lag_ms: 1.5}, cn: {}}
                us: up
                """))).hasMessage(String.join("\n",
                "h.yaml:2: eu.replication_lag_ms: -5 (expected: a whole number of ms >= 0, or -1 for unknown)",
                "h.yaml:4: eu.unit_lag.u-paris.us.lag_ms: 1.5 (expected: a whole number of ms >= 0)",
                "h.yaml:4: eu.unit_lag.u-paris.cn.lag_ms: missing (expected: a whole number of ms >= 0)",
                "h.yaml:5: us: not a mapping (expected: a health entry)"));
    }
}
