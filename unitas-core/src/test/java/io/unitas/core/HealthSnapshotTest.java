package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The health table the router reads: absence of evidence is not health, and a snapshot never changes. */
class HealthSnapshotTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final RegionHealth READ_ONLY = new RegionHealth(true, false, 250, 0.7, List.of("pg: read-only"));

    private static Map<Region, RegionHealth> ordered(Object... regionAndHealth) {
        Map<Region, RegionHealth> m = new LinkedHashMap<>();
        for (int i = 0; i < regionAndHealth.length; i += 2) {
            m.put((Region) regionAndHealth[i], (RegionHealth) regionAndHealth[i + 1]);
        }
        return m;
    }

    private static final HealthSnapshot SNAPSHOT =
            HealthSnapshot.of(12, ordered(US, RegionHealth.down(), CN, READ_ONLY));

    @Test
    void aRegionIsHealthyOnlyWhenReportedHealthy() {
        assertThat(SNAPSHOT.isHealthy(CN)).isTrue();
        assertThat(SNAPSHOT.isHealthy(US)).isFalse();
        assertThat(SNAPSHOT.isHealthy(EU)).as("not reported").isFalse();
    }

    @Test
    void anUnreportedRegionIsDownAndSaysSo() {
        assertThat(SNAPSHOT.get(CN)).isEqualTo(READ_ONLY);
        assertThat(SNAPSHOT.get(EU)).isEqualTo(RegionHealth.down(List.of("no health reported for region eu")));
    }

    @Test
    void theEmptySnapshotHasEveryRegionDownAtRevisionZero() {
        HealthSnapshot empty = HealthSnapshot.empty();

        assertThat(empty.isHealthy(CN)).isFalse();
        assertThat(empty.regions()).isEmpty();
        assertThat(empty.revision()).isZero();
    }

    @Test
    void theRegionsKeepTheirGivenOrderAndLaterChangesToTheSourceDoNotShow() {
        Map<Region, RegionHealth> source = ordered(US, RegionHealth.down(), CN, READ_ONLY);
        HealthSnapshot snapshot = HealthSnapshot.of(3, source);
        source.put(EU, RegionHealth.up());

        assertThat(snapshot.regions().keySet()).containsExactly(US, CN);
        assertThat(snapshot.isHealthy(EU)).isFalse();
        assertThatThrownBy(() -> snapshot.regions().put(EU, RegionHealth.up()))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aNegativeRevisionIsRefusedAndZeroIsTheFirstAllowed() {
        assertThatThrownBy(() -> HealthSnapshot.of(-1, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("revision: -1 (expected: >= 0)");
        assertThat(HealthSnapshot.of(0, Map.of(CN, READ_ONLY)).revision()).isZero();
        assertThat(HealthSnapshot.of(Map.of(CN, READ_ONLY)).revision()).isZero();
    }

    @Test
    void flagsAreUpOrDownAndAMissingFlagIsDown() {
        Map<Region, Boolean> flags = new HashMap<>();
        flags.put(CN, true);
        flags.put(EU, false);
        flags.put(US, null);

        HealthSnapshot snapshot = HealthSnapshot.ofFlags(flags);

        assertThat(snapshot.get(CN)).isEqualTo(RegionHealth.up());
        assertThat(snapshot.get(EU)).isEqualTo(RegionHealth.down());
        assertThat(snapshot.get(US)).isEqualTo(RegionHealth.down());
        assertThat(snapshot.revision()).isZero();
    }

    @Test
    void with_replacesOneRegionInACopyAtTheNewRevision() {
        HealthSnapshot next = SNAPSHOT.with(13, US, RegionHealth.up());

        assertThat(next.revision()).isEqualTo(13);
        assertThat(next.regions()).containsExactly(Map.entry(US, RegionHealth.up()), Map.entry(CN, READ_ONLY));
        assertThat(SNAPSHOT.isHealthy(US)).as("the original is unchanged").isFalse();
        assertThat(SNAPSHOT.revision()).isEqualTo(12);
    }

    static Stream<Arguments> variants() {
        return Stream.of(
                Arguments.of("the same table and revision", HealthSnapshot.of(12, Map.of(US, RegionHealth.down(),
                                                                                         CN, READ_ONLY)), true),
                Arguments.of("another revision", HealthSnapshot.of(13, ordered(US, RegionHealth.down(), CN, READ_ONLY)),
                             false),
                Arguments.of("another health", HealthSnapshot.of(12, ordered(US, RegionHealth.up(), CN, READ_ONLY)),
                             false),
                Arguments.of("a region fewer", HealthSnapshot.of(12, ordered(CN, READ_ONLY)), false));
    }

    @ParameterizedTest(name = "{0}: equal {2}")
    @MethodSource("variants")
    void snapshotsAreEqualByRevisionAndTable(String name, HealthSnapshot other, boolean equal) {
        assertThat(SNAPSHOT.equals(other)).isEqualTo(equal);
        assertThat(other.equals(SNAPSHOT)).isEqualTo(equal);
        if (equal) {
            assertThat(other.hashCode()).isEqualTo(SNAPSHOT.hashCode());
        }
        assertThat(SNAPSHOT.equals(SNAPSHOT.regions())).isFalse();
    }

    @Test
    void theTextShowsTheRevisionAndTheTable() {
        assertThat(HealthSnapshot.of(4, Map.of(CN, RegionHealth.up())).toString())
                .isEqualTo("HealthSnapshot{revision=4, regions={cn=" + RegionHealth.up() + "}}");
    }
}
