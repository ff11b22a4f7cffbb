package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The regions, their order, capacities, center and fallback lists, and every mistake the builder names. */
class TopologyTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Region AP = Region.of("ap");

    /** cn (capacity 100) and eu (none) and us (0); us fails over to cn only; the center is eu. */
    private static final Topology TOPOLOGY = Topology.builder()
            .region("cn", 100.0).region("eu").region("us", 0.0)
            .fallback("us", List.of("cn"))
            .center("eu")
            .build();

    @Test
    void theRegionsAreKeptInTheirListedOrder() {
        assertThat(TOPOLOGY.regions()).containsExactly(CN, EU, US);
        assertThat(TOPOLOGY.indexOf(CN)).isZero();
        assertThat(TOPOLOGY.indexOf(US)).isEqualTo(2);
        assertThat(TOPOLOGY.indexOf(AP)).isEqualTo(-1);
    }

    @Test
    void aRegionIsFoundByIdOnlyWhenTheTopologyHasIt() {
        assertThat(TOPOLOGY.region("eu")).contains(EU);
        assertThat(TOPOLOGY.region("ap")).isEmpty();
        assertThat(TOPOLOGY.contains(EU)).isTrue();
        assertThat(TOPOLOGY.contains(AP)).isFalse();
    }

    @Test
    void aRegionWithoutCapacityIsUnlimitedAndAZeroCapacityIsKept() {
        assertThat(TOPOLOGY.capacity(CN)).isEqualTo(OptionalDouble.of(100));
        assertThat(TOPOLOGY.capacity(US)).isEqualTo(OptionalDouble.of(0));
        assertThat(TOPOLOGY.capacity(EU)).isEmpty();
        assertThat(TOPOLOGY.capacity(AP)).isEmpty();
    }

    @Test
    void theCenterIsOptional() {
        assertThat(TOPOLOGY.center()).contains(EU);
        assertThat(Topology.of("cn", "eu").center()).isEmpty();
    }

    @Test
    void aHomeWithoutItsOwnListFailsOverToEveryOtherRegionInListedOrder() {
        assertThat(TOPOLOGY.fallback(CN)).containsExactly(EU, US);
        assertThat(TOPOLOGY.fallback(EU)).containsExactly(CN, US);
    }

    @Test
    void aHomeWithItsOwnListFailsOverOnlyThere() {
        assertThat(TOPOLOGY.fallback(US)).containsExactly(CN);
        assertThat(TOPOLOGY.explicitFallbacks()).containsExactly(Map.entry(US, List.of(CN)));
    }

    @Test
    void aRegionTheTopologyDoesNotHaveFailsOverNowhere() {
        assertThat(TOPOLOGY.fallback(AP)).isEmpty();
    }

    @Test
    void aSingleRegionFailsOverNowhere() {
        assertThat(Topology.of("cn").fallback(CN)).isEmpty();
    }

    static Stream<Arguments> variants() {
        return Stream.of(
                Arguments.of("the same topology, built again", Topology.builder()
                        .region("cn", 100.0).region("eu").region("us", 0.0)
                        .fallback("us", List.of("cn")).center("eu").build(), true),
                Arguments.of("regions in another order", Topology.builder()
                        .region("eu").region("cn", 100.0).region("us", 0.0)
                        .fallback("us", List.of("cn")).center("eu").build(), false),
                Arguments.of("another capacity", Topology.builder()
                        .region("cn", 50.0).region("eu").region("us", 0.0)
                        .fallback("us", List.of("cn")).center("eu").build(), false),
                Arguments.of("no explicit fallback", Topology.builder()
                        .region("cn", 100.0).region("eu").region("us", 0.0)
                        .center("eu").build(), false),
                Arguments.of("another center", Topology.builder()
                        .region("cn", 100.0).region("eu").region("us", 0.0)
                        .fallback("us", List.of("cn")).center("cn").build(), false),
                Arguments.of("no center", Topology.builder()
                        .region("cn", 100.0).region("eu").region("us", 0.0)
                        .fallback("us", List.of("cn")).build(), false));
    }

    @ParameterizedTest(name = "{0}: equal {2}")
    @MethodSource("variants")
    void topologiesAreEqualByRegionsCapacitiesFallbacksAndCenter(String name, Topology other, boolean equal) {
        assertThat(TOPOLOGY.equals(other)).isEqualTo(equal);
        assertThat(other.equals(TOPOLOGY)).isEqualTo(equal);
        if (equal) {
            assertThat(other.hashCode()).isEqualTo(TOPOLOGY.hashCode());
        }
        assertThat(TOPOLOGY.equals("cn,eu,us")).isFalse();
    }

    @Test
    void theTextShowsEveryPart() {
        assertThat(TOPOLOGY.toString())
                .isEqualTo("Topology{regions=[cn, eu, us], capacity={cn=100.0, us=0.0}, fallback={us=[cn]}, center=eu}");
    }

    static Stream<Arguments> mistakes() {
        return Stream.of(
                mistake("no region", b -> { }, "regions: [] (expected: at least one region)"),
                mistake("a malformed id", b -> b.region("cn").region("EU"),
                        "regions[1].id: 'EU' (expected: lowercase letters, digits, '-' or '_', at most 63)"),
                mistake("a duplicate id", b -> b.region("cn").region("eu").region("cn"),
                        "regions[2].id: duplicate region 'cn' (first at regions[0])"),
                mistake("a negative whole capacity", b -> b.region("cn", -5.0),
                        "regions[0].capacity: -5 (expected: >= 0)"),
                mistake("a negative fractional capacity", b -> b.region("cn", -0.5),
                        "regions[0].capacity: -0.5 (expected: >= 0)"),
                mistake("an infinite capacity", b -> b.region("cn", Double.POSITIVE_INFINITY),
                        "regions[0].capacity: Infinity (expected: >= 0)"),
                mistake("a capacity that is not a number", b -> b.region("cn", Double.NaN),
                        "regions[0].capacity: NaN (expected: >= 0)"),
                mistake("a fallback for an unknown home", b -> b.region("cn").region("eu").fallback("ap", List.of("cn")),
                        "fallback.ap: unknown region 'ap' (expected one of: cn, eu)"),
                mistake("a home in its own fallback", b -> b.region("cn").region("eu").fallback("cn", List.of("eu", "cn")),
                        "fallback.cn[1]: 'cn' is the home region itself (expected: only other regions)"),
                mistake("an unknown region in a fallback", b -> b.region("cn").region("eu").fallback("cn", List.of("ap")),
                        "fallback.cn[0]: unknown region 'ap' (expected one of: cn, eu)"),
                mistake("a region twice in a fallback",
                        b -> b.region("cn").region("eu").region("us").fallback("cn", List.of("eu", "us", "eu")),
                        "fallback.cn[2]: duplicate region 'eu' (first at fallback.cn[0])"),
                mistake("an unknown center", b -> b.region("us").region("eu").region("cn").center("ap"),
                        "center: unknown region 'ap' (expected one of: us, eu, cn)"));
    }

    private static Arguments mistake(String name, Consumer<Topology.Builder> build, String message) {
        return Arguments.of(name, build, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mistakes")
    void eachMistakeIsNamedWithItsPath(String name, Consumer<Topology.Builder> build, String message) {
        Topology.Builder builder = Topology.builder();
        build.accept(builder);

        assertThat(builder.problems()).extracting(Problem::toString).containsExactly(message);
        assertThatThrownBy(builder::build).isInstanceOf(InvalidModelException.class).hasMessage(message);
    }

    @Test
    void everyMistakeIsNamedInOnePassInDocumentOrder() {
        Topology.Builder builder = Topology.builder().region("cn").region("cn", -1.0).center("ap");

        assertThat(builder.problems()).extracting(Problem::path)
                .containsExactly("regions[1].id", "regions[1].capacity", "center");
    }

    @Test
    void aValidBuilderHasNoProblems() {
        Topology.Builder builder = Topology.builder().region("cn").region("eu").fallback("cn", List.of("eu"));

        assertThat(builder.problems()).isEmpty();
        assertThat(builder.build().region("cn")).isEqualTo(Optional.of(CN));
    }
}
