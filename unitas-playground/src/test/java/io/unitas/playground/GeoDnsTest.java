package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The naive side's GeoDNS: a region out after {@code fall} failed probes, back after {@code rise} good ones. */
class GeoDnsTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");

    private final GeoDns dns = new GeoDns(List.of(CN, EU, US), 2, 2);

    @Test
    void oneFailedProbe_keepsTheRegion_twoTakeItOut_andItsUsersGoToTheNextRegion() {
        dns.observe(CN, false);
        assertThat(dns.resolve(CN)).isEqualTo(CN);

        dns.observe(CN, false);
        assertThat(dns.resolve(CN)).isEqualTo(EU);
        assertThat(dns.resolve(US)).as("another region's users stay home").isEqualTo(US);
    }

    @Test
    void aRegionOut_comesBackAfterRiseGoodProbesInARow() {
        dns.observe(CN, false);
        dns.observe(CN, false);

        dns.observe(CN, true);
        dns.observe(CN, false);
        dns.observe(CN, true);
        assertThat(dns.resolve(CN)).as("a good probe between failures is not a rise").isEqualTo(EU);
        dns.observe(CN, true);
        assertThat(dns.resolve(CN)).isEqualTo(CN);
    }

    @Test
    void theFallbackOrder_isTheRegionList_andEveryRegionOutLeavesHome() {
        for (Region r : List.of(EU, CN)) {
            dns.observe(r, false);
            dns.observe(r, false);
        }
        assertThat(dns.resolve(EU)).isEqualTo(US);
        dns.observe(US, false);
        dns.observe(US, false);
        assertThat(dns.resolve(EU)).isEqualTo(EU);
    }
}
