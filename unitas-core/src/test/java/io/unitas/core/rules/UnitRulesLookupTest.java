package io.unitas.core.rules;

import static io.unitas.core.rules.RulesFixtures.TOPOLOGY;
import static io.unitas.core.rules.RulesFixtures.header;
import static io.unitas.core.rules.RulesFixtures.threeUnits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Region;
import io.unitas.core.rules.UnitLookup.Outcome;

class UnitRulesLookupTest {

    private final UnitRules rules = threeUnits().build(TOPOLOGY);

    @ParameterizedTest(name = "user {0} is in unit {1} at {2}")
    @CsvSource({
            "0,      u-cn, cn",
            "3999,   u-cn, cn",
            "4000,   u-eu, eu",
            "16999,  u-eu, eu",
            "9999,   u-us, us",
            "123457000, u-us, us",
    })
    void aHeaderKey_isTransformedAndMatchedAgainstTheRanges(String user, String unit, String region) {
        UnitLookup lookup = rules.lookup(header("x-user-id", user));
        assertThat(lookup.outcome()).isEqualTo(Outcome.UNIT);
        assertThat(lookup.unit().id()).isEqualTo(unit);
        assertThat(lookup.region()).isEqualTo(Region.of(region));
        assertThat(lookup.source()).isEqualTo(KeySource.header("x-user-id"));
        assertThat(lookup.key()).isEqualTo(user);
        assertThat(lookup.transformedKey()).isEqualTo(Long.parseLong(user) % 10_000);
    }

    @Test
    void headerNames_matchCaseInsensitively() {
        assertThat(rules.lookup(header("X-User-ID", "5000")).unit().id()).isEqualTo("u-eu");
    }

    @Test
    void sources_areAskedInPriorityOrder_theFirstWithAKeyDecides() {
        RequestView all = RequestView.of(Map.of("x-user-id", "1"), Map.of("uid", "1"),
                                         Map.of("user_id", "1"), "paris.example.com");
        RequestView noHeader = RequestView.of(Map.of(), Map.of("uid", "5000"), Map.of("user_id", "5000"),
                                              "paris.example.com");
        RequestView queryAndHost = RequestView.of(Map.of(), Map.of(), Map.of("user_id", "9000"), "shanghai.x.io");
        RequestView hostOnly = RequestView.of(Map.of(), Map.of(), Map.of(), "Paris.Example.com:8443");
        assertThat(rules.lookup(all).source()).isEqualTo(KeySource.header("x-user-id"));
        assertThat(rules.lookup(noHeader).source()).isEqualTo(KeySource.cookie("uid"));
        assertThat(rules.lookup(noHeader).unit().id()).isEqualTo("u-eu");
        assertThat(rules.lookup(queryAndHost).source()).isEqualTo(KeySource.query("user_id"));
        assertThat(rules.lookup(queryAndHost).unit().id()).isEqualTo("u-us");
        assertThat(rules.lookup(hostOnly).source()).isEqualTo(KeySource.domainPrefix());
        assertThat(rules.lookup(hostOnly).unit().id()).isEqualTo("u-eu");
        assertThat(rules.lookup(hostOnly).key()).isEqualTo("paris");
    }

    @Test
    void twoSourcesWithDifferentKeys_areAmbiguous_namingBoth() {
        RequestView view = RequestView.of(Map.of("x-user-id", "4500"), Map.of(), Map.of("user_id", "100"), null);

        UnitLookup lookup = rules.lookup(view);

        assertThat(lookup.outcome()).isEqualTo(Outcome.AMBIGUOUS_KEY);
        assertThat(lookup.hasRegion()).isFalse();
        assertThat(lookup.message()).isEqualTo("routing keys disagree: '4500' from header x-user-id and '100' from"
                                               + " query user_id (expected: one key, or the same key from each"
                                               + " source)");
    }

    @Test
    void aKeyGivenTwiceBySource_isAmbiguous_evenWhenAnotherSourceDecided() {
        RequestView twice = new RepeatedView(RequestView.of(Map.of("x-user-id", "4500"), Map.of("uid", "4500"),
                                                            Map.of(), null), KeySource.cookie("uid"));

        UnitLookup lookup = rules.lookup(twice);

        assertThat(lookup.outcome()).isEqualTo(Outcome.AMBIGUOUS_KEY);
        assertThat(lookup.source()).isEqualTo(KeySource.cookie("uid"));
        assertThat(lookup.otherSource()).isNull();
        assertThat(lookup.message()).isEqualTo("routing key cookie uid given more than once (expected: once)");
    }

    @Test
    void aDomainPrefixBeforeAnyKey_decidesAlone() {
        UnitRules hostFirst = UnitRules.builder().unit("u-cn", "cn").unit("u-eu", "eu")
                .source(KeySource.domainPrefix()).source(KeySource.header("x-user-id"))
                .transform(KeyTransform.mod(10)).range(0, 4, "u-cn").range(5, 9, "u-eu")
                .domain("paris", "u-eu").strategies(Map.of()).build(TOPOLOGY);

        UnitLookup lookup = hostFirst.lookup(RequestView.of(Map.of("x-user-id", "1"), Map.of(), Map.of(),
                                                            "paris.example.com"));

        assertThat(lookup.unit().id()).isEqualTo("u-eu");
    }

    @ParameterizedTest(name = "{0} yields {1}")
    @CsvSource(nullValues = "-", value = {
            "/wallets/4500,            4500",
            "/wallets/4500/deposits,   4500",
            "/wallets/45%3100,         45100",
            "/wallets/,                -",
            "/wallets,                 -",
            "/Wallets/4500,            -",
            "/wallet/4500,             -",
            "/,                        -",
    })
    void aPathSource_readsTheVariableSegment(String path, String key) {
        UnitRules byPath = UnitRules.builder().unit("u-cn", "cn").unit("u-eu", "eu")
                .source(KeySource.path("/wallets/{userId}"))
                .transform(KeyTransform.mod(10_000)).range(0, 3999, "u-cn").range(4000, 9999, "u-eu")
                .strategies(Map.of()).build(TOPOLOGY);

        UnitLookup lookup = byPath.lookup(RequestView.of(Map.of(), Map.of(), Map.of(), null, path));

        assertThat(lookup.key()).isEqualTo(key);
        assertThat(lookup.outcome()).isEqualTo(key == null ? Outcome.MISSING_KEY : Outcome.UNIT);
    }

    @Test
    void aPathKeyAndAHeaderKey_mustAgree() {
        UnitRules both = UnitRules.builder().unit("u-cn", "cn").unit("u-eu", "eu")
                .source(KeySource.header("x-user-id")).source(KeySource.path("/wallets/{userId}"))
                .transform(KeyTransform.mod(10_000)).range(0, 3999, "u-cn").range(4000, 9999, "u-eu")
                .strategies(Map.of()).build(TOPOLOGY);
        RequestView agree = RequestView.of(Map.of("x-user-id", "4500"), Map.of(), Map.of(), null, "/wallets/4500");
        RequestView disagree = RequestView.of(Map.of("x-user-id", "4500"), Map.of(), Map.of(), null, "/wallets/100");

        assertThat(both.lookup(agree).unit().id()).isEqualTo("u-eu");
        assertThat(both.lookup(disagree).outcome()).isEqualTo(Outcome.AMBIGUOUS_KEY);
        assertThat(both.lookup(disagree).message()).contains("'4500' from header x-user-id",
                                                             "'100' from path /wallets/{userId}");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "wallets/{id}    | does not start with '/'",
            "/wallets//{id}  | has an empty segment",
            "/wallets/{id}/  | has an empty segment",
            "/wallets        | has no {variable}",
            "/w/{a}/{b}      | has more than one variable",
            "/w/x{a}         | is not a whole {variable}",
            "/w/{}           | is not a whole {variable}",
    })
    void aBadPathPattern_isRefused_sayingWhatWasExpected(String pattern, String problem) {
        assertThatThrownBy(() -> KeySource.path(pattern))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(problem)
                .hasMessageContaining("expected: a path such as /wallets/{userId}");
    }

    /** A view in which one source's name is given more than once, as a live request can have it. */
    private record RepeatedView(RequestView view, KeySource repeated) implements RequestView {
        @Override
        public String header(String name) {
            return view.header(name);
        }

        @Override
        public String cookie(String name) {
            return view.cookie(name);
        }

        @Override
        public String query(String name) {
            return view.query(name);
        }

        @Override
        public String host() {
            return view.host();
        }

        @Override
        public boolean repeated(KeySource source) {
            return source.equals(repeated);
        }
    }

    @Test
    void anEmptyValue_countsAsNoKey() {
        RequestView view = RequestView.of(Map.of("x-user-id", ""), Map.of("uid", "4000"), Map.of(), null);
        assertThat(rules.lookup(view).source()).isEqualTo(KeySource.cookie("uid"));
    }

    @ParameterizedTest(name = "host {0} has no known domain prefix")
    @CsvSource({"www.example.com", "localhost", ".paris", "parisx.example.com"})
    void aHostWithoutAKnownPrefix_isNoKey(String host) {
        RequestView view = RequestView.of(Map.of(), Map.of(), Map.of(), host);
        assertThat(rules.lookup(view).outcome()).isEqualTo(Outcome.MISSING_KEY);
    }

    @Test
    void noKey_missingReject_isAMissingKeyOutcome() {
        UnitLookup lookup = rules.lookup(RequestView.ofHeaders(Map.of("other", "1")));
        assertThat(lookup.outcome()).isEqualTo(Outcome.MISSING_KEY);
        assertThat(lookup.hasRegion()).isFalse();
        assertThat(lookup.message()).isEqualTo("no routing key in the request");
    }

    @Test
    void noKey_missingCenter_goesToTheTopologyCenter() {
        UnitRules center = threeUnits().missing(MissingKeyAction.CENTER).build(TOPOLOGY);
        UnitLookup lookup = center.lookup(RequestView.ofHeaders(Map.of()));
        assertThat(lookup.outcome()).isEqualTo(Outcome.CENTER);
        assertThat(lookup.region()).isEqualTo(Region.of("cn"));
        assertThat(lookup.unit()).isNull();
    }

    @Test
    void aNonNumericKeyUnderMod_isABadKey_notAnException_andStopsTheLookup() {
        RequestView view = RequestView.of(Map.of("x-user-id", "alice"), Map.of("uid", "alice"), Map.of(), null);
        UnitLookup lookup = rules.lookup(view);
        assertThat(lookup.outcome()).isEqualTo(Outcome.BAD_KEY);
        assertThat(lookup.message()).isEqualTo("bad key 'alice' from header x-user-id");
    }

    @Test
    void underHashMod_anyStringKeyHasAUnit() {
        UnitRules hashed = threeUnits().transform(KeyTransform.hashMod(10_000)).build(TOPOLOGY);
        UnitLookup lookup = hashed.lookup(header("x-user-id", "alice@example.com"));
        long expected = Long.remainderUnsigned(KeyTransform.fnv1a64("alice@example.com"), 10_000);
        assertThat(lookup.transformedKey()).isEqualTo(expected);
        assertThat(lookup.outcome()).isEqualTo(Outcome.UNIT);
    }

    @Test
    void underNone_aKeyOutsideEveryRange_isOutOfRange() {
        UnitRules none = UnitRules.builder().unit("u-sh", "cn").unit("u-hz", "eu")
                .source(KeySource.header("userid")).range(0, 1999, "u-sh").range(2000, 9999, "u-hz")
                .build(TOPOLOGY);
        assertThat(none.lookup(header("userid", "1999")).unit().id()).isEqualTo("u-sh");
        assertThat(none.lookup(header("userid", "2000")).unit().id()).isEqualTo("u-hz");
        UnitLookup outside = none.lookup(header("userid", "10000"));
        assertThat(outside.outcome()).isEqualTo(Outcome.OUT_OF_RANGE);
        assertThat(outside.message()).isEqualTo("key '10000' from header userid (transformed 10000) is in no range");
    }

    @Test
    void aCustomStrategy_isFoundThroughServiceLoader_andNamesTheUnit() {
        assertThat(UnitStrategy.installed()).containsKey("tenant");
        UnitRules withStrategy = UnitRules.builder().unit("u-cn", "cn").unit("u-eu", "eu").unit("u-us", "us")
                .source(KeySource.strategy("tenant")).source(KeySource.header("x-user-id"))
                .transform(KeyTransform.mod(2)).range(0, 1, "u-cn")
                .build(TOPOLOGY);
        UnitLookup acme = withStrategy.lookup(RequestView.ofHeaders(Map.of("x-tenant", "acme", "x-user-id", "1")));
        assertThat(acme.unit().id()).isEqualTo("u-eu");
        assertThat(acme.source()).isEqualTo(KeySource.strategy("tenant"));
        UnitLookup noTenant = withStrategy.lookup(header("x-user-id", "1"));
        assertThat(noTenant.unit().id()).isEqualTo("u-cn");
        UnitLookup unknown = withStrategy.lookup(header("x-tenant", "globex"));
        assertThat(unknown.outcome()).isEqualTo(Outcome.UNKNOWN_UNIT);
        assertThat(unknown.message()).isEqualTo("strategy tenant named unknown unit 'u-globex'");
    }

    @Test
    void precomputedOutcomes_areSharedInstances() {
        RequestView host = RequestView.of(Map.of(), Map.of(), Map.of(), "shanghai.example.com");
        assertThat(rules.lookup(host)).isSameAs(rules.lookup(host));
        RequestView none = RequestView.ofHeaders(Map.of());
        assertThat(rules.lookup(none)).isSameAs(rules.lookup(none));
    }

    @Test
    void grayRules_pickTheFirstMatchingVersion_orTheFallbackRoute() {
        UnitRules gray = threeUnits().gray("u-cn", List.of(
                GrayRule.when("x-version", "1.1", "1.1"),
                GrayRule.when("x-version", "2", "2.0-green"),
                GrayRule.otherwise("1.0"))).build(TOPOLOGY);
        Unit cn = gray.unit("u-cn");
        assertThat(gray.grayVersion(cn, header("X-Version", "1.1"))).isEqualTo("1.1");
        assertThat(gray.grayVersion(cn, header("x-version", "2"))).isEqualTo("2.0-green");
        assertThat(gray.grayVersion(cn, header("x-version", "3"))).isEqualTo("1.0");
        assertThat(gray.grayVersion(gray.unit("u-eu"), header("x-version", "1.1"))).isNull();
    }

    @Test
    void remap_movesTheNamedUnits_andDropsTheirGrayRulesOnly() {
        UnitRules before = threeUnits()
                .gray("u-cn", List.of(GrayRule.when("x-version", "1.1", "1.1")))
                .gray("u-eu", List.of(GrayRule.otherwise("1.0")))
                .build(TOPOLOGY);
        UnitRules after = before.remap(Map.of("u-cn", "eu"));
        assertThat(after.unit("u-cn").home()).isEqualTo(Region.of("eu"));
        assertThat(after.unit("u-eu").home()).isEqualTo(Region.of("eu"));
        assertThat(after.gray()).containsOnlyKeys("u-eu");
        assertThat(after.lookup(header("x-user-id", "1")).region()).isEqualTo(Region.of("eu"));
        assertThat(before.unit("u-cn").home()).isEqualTo(Region.of("cn"));
        assertThat(before.gray()).containsOnlyKeys("u-cn", "u-eu");
    }

    @Test
    void remap_toTheSameRegion_keepsGrayRules() {
        UnitRules before = threeUnits().gray("u-cn", List.of(GrayRule.otherwise("1.0"))).build(TOPOLOGY);
        assertThat(before.remap(Map.of("u-cn", "cn"))).isEqualTo(before);
    }

    @Test
    void remap_rejectsUnknownUnitsAndRegions_andChangesNothing() {
        assertThatThrownBy(() -> rules.remap(Map.of("u-xx", "eu")))
                .isInstanceOf(InvalidModelException.class)
                .hasMessage("units.u-xx: unknown unit 'u-xx' (expected one of: u-cn, u-eu, u-us)");
        assertThatThrownBy(() -> rules.remap(Map.of("u-cn", "mars")))
                .hasMessage("units.u-cn: unknown region 'mars' (expected one of: cn, eu, us)");
        assertThat(rules.unit("u-cn").home()).isEqualTo(Region.of("cn"));
    }

    @Test
    void centerUnits_liveInTheCenterRegion() {
        assertThat(rules.isCenterUnit(rules.unit("u-cn"))).isTrue();
        assertThat(rules.isCenterUnit(rules.unit("u-eu"))).isFalse();
    }
}
