package io.unitas.core.rules;

import static io.unitas.core.rules.RulesFixtures.TOPOLOGY;
import static io.unitas.core.rules.RulesFixtures.header;
import static io.unitas.core.rules.RulesFixtures.threeUnits;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The one line a lookup gives a person (the gateway's problem details and `unitas rules lookup` print it). */
class UnitLookupMessageTest {

    private final UnitRules rules = threeUnits().build(TOPOLOGY);

    @Test
    void aTransformedKeySaysWhatItWasTransformedTo() {
        UnitLookup lookup = rules.lookup(header("x-user-id", "123457000"));

        assertThat(lookup.message())
                .isEqualTo("unit u-us in region us (key '123457000' from header x-user-id, transformed 7000)");
        assertThat(lookup).hasToString(lookup.message());
    }

    @Test
    void aKeyTransformedToZeroStillSaysSo() {
        assertThat(rules.lookup(header("x-user-id", "10000")).message())
                .isEqualTo("unit u-cn in region cn (key '10000' from header x-user-id, transformed 0)");
    }

    @Test
    void aDomainPrefixIsNotTransformed() {
        UnitLookup lookup = rules.lookup(RequestView.of(Map.of(), Map.of(), Map.of(), "paris.example.com"));

        assertThat(lookup.transformedKey()).isEqualTo(-1);
        assertThat(lookup.message()).isEqualTo("unit u-eu in region eu (key 'paris' from domain-prefix)");
    }

    @Test
    void aRequestWithoutKeyUnderCenterNamesTheCenter() {
        UnitRules center = threeUnits().missing(MissingKeyAction.CENTER).build(TOPOLOGY);

        assertThat(center.lookup(RequestView.ofHeaders(Map.of())).message())
                .isEqualTo("no routing key; center region cn");
    }

    @Test
    void twoLookupsOfTheSameRequestAreEqualAndOfAnotherAreNot() {
        UnitLookup a = rules.lookup(header("x-user-id", "4242"));

        assertThat(rules.lookup(header("x-user-id", "4242"))).isEqualTo(a).hasSameHashCodeAs(a);
        assertThat(rules.lookup(header("x-user-id", "14242"))).as("another key, same unit").isNotEqualTo(a);
        assertThat(rules.lookup(header("x-user-id", "4243"))).as("another transformed key").isNotEqualTo(a);
        assertThat(rules.lookup(RequestView.ofHeaders(Map.of("userid", "4242")))).isNotEqualTo(a);
        assertThat(a.equals(a.message())).isFalse();
    }
}
