package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.unitas.control.HealthEntry.Freshness;
import io.unitas.core.Region;
import io.unitas.testkit.MutableClock;

/**
 * The rule that takes a silent region down before its grace: stale, and unreachable from another region since its
 * last report. Every case runs on a controlled clock: TTL 2 s, grace 1 s, evidence alive for the TTL.
 */
class PeerEvidenceTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration GRACE = Duration.ofSeconds(1);
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");

    private final MutableClock clock = new MutableClock(T0);

    /** cn's freshness now, its last report received at T0, after {@code previous}, with {@code evidence}. */
    private Freshness cn(PeerEvidence evidence, Freshness previous) {
        Instant now = clock.instant();
        return HealthEntry.freshness(T0, T0, now, TTL, GRACE, TTL, evidence.against(CN, T0, now, TTL), previous);
    }

    @Test
    void staleAndUnreachableFromAPeerAfterItsLastReport_isDownAtOnce() {
        clock.advance(Duration.ofMillis(500));
        PeerEvidence evidence = PeerEvidence.NONE.with(CN, EU, clock.instant());
        clock.advance(Duration.ofMillis(1600)); // 2.1 s since cn's last report: stale, 0.9 s before the grace ends

        assertThat(cn(PeerEvidence.NONE, Freshness.STALE)).isEqualTo(Freshness.STALE);
        assertThat(cn(evidence, Freshness.STALE)).isEqualTo(Freshness.EXPIRED);
    }

    @Test
    void withATtlForEvidence_aRegionThatMissedTwoPushesAndOthersCannotReach_isDownBeforeItsTtl() {
        Duration twoPushesMissed = Duration.ofMillis(1500); // it pushes every 500 ms
        clock.advance(Duration.ofMillis(300));
        PeerEvidence evidence = PeerEvidence.NONE.with(CN, EU, clock.instant());
        clock.advance(Duration.ofMillis(1100)); // 1.4 s since cn's last report
        Instant now = clock.instant();
        assertThat(HealthEntry.freshness(T0, T0, now, TTL, GRACE, twoPushesMissed, evidence.against(CN, T0, now, TTL),
                                         Freshness.FRESH)).isEqualTo(Freshness.FRESH);

        clock.advance(Duration.ofMillis(200)); // 1.6 s: two pushes missed, and eu cannot reach it
        now = clock.instant();
        assertThat(HealthEntry.freshness(T0, T0, now, TTL, GRACE, twoPushesMissed, evidence.against(CN, T0, now, TTL),
                                         Freshness.FRESH)).isEqualTo(Freshness.EXPIRED);
        assertThat(HealthEntry.freshness(T0, T0, now, TTL, GRACE, twoPushesMissed, Optional.empty(),
                                         Freshness.FRESH)).as("without evidence: fresh until the TTL")
                .isEqualTo(Freshness.FRESH);
    }

    @Test
    void freshReport_winsOverAnyEvidence() {
        clock.advance(Duration.ofMillis(100));
        PeerEvidence evidence = PeerEvidence.NONE.with(CN, EU, clock.instant()).with(CN, US, clock.instant());
        clock.advance(Duration.ofMillis(1800)); // 1.9 s: fresh; a partition between regions is no region failure

        assertThat(cn(evidence, Freshness.FRESH)).isEqualTo(Freshness.FRESH);
    }

    @Test
    void evidenceOlderThanTheLastReport_isIgnored() {
        PeerEvidence before = PeerEvidence.NONE.with(CN, EU, T0.minusMillis(1));
        PeerEvidence atTheSameInstant = PeerEvidence.NONE.with(CN, EU, T0);
        clock.advance(Duration.ofMillis(2100));

        assertThat(before.against(CN, T0, clock.instant(), Duration.ofMinutes(1))).isEmpty();
        assertThat(cn(before, Freshness.STALE)).isEqualTo(Freshness.STALE);
        assertThat(cn(atTheSameInstant, Freshness.STALE)).isEqualTo(Freshness.STALE);
    }

    @Test
    void aRegionsReportAboutItself_isIgnored() {
        clock.advance(Duration.ofMillis(500));
        PeerEvidence self = PeerEvidence.NONE.with(CN, CN, clock.instant());
        clock.advance(Duration.ofMillis(1600));

        assertThat(self).isEqualTo(PeerEvidence.NONE);
        assertThat(cn(self, Freshness.STALE)).isEqualTo(Freshness.STALE);
    }

    @Test
    void evidence_expiresAfterItsLifetime() {
        clock.advance(Duration.ofMillis(100));
        PeerEvidence evidence = PeerEvidence.NONE.with(CN, EU, clock.instant());
        clock.advance(TTL.plusMillis(1)); // 2.101 s since cn's report, 2.001 s since eu's: past its lifetime

        assertThat(evidence.against(CN, T0, clock.instant(), TTL)).isEmpty();
        assertThat(cn(evidence, Freshness.STALE)).isEqualTo(Freshness.STALE);
        assertThat(evidence.pruned(clock.instant(), TTL)).isEqualTo(PeerEvidence.NONE);
    }

    @Test
    void downByEvidence_staysDownUntilTheRegionReportsAgain_evenWhenTheEvidenceAgesOut() {
        clock.advance(Duration.ofMillis(2100));
        assertThat(cn(PeerEvidence.NONE, Freshness.EXPIRED)).isEqualTo(Freshness.EXPIRED);

        Instant next = clock.instant();
        assertThat(HealthEntry.freshness(next, next, next, TTL, GRACE, TTL, Optional.empty(), Freshness.EXPIRED))
                .as("a new report is fresh whatever came before").isEqualTo(Freshness.FRESH);
    }

    @Test
    void withoutEvidence_theTtlAndGraceRuleIsUnchanged() {
        clock.advance(TTL);
        assertThat(cn(PeerEvidence.NONE, Freshness.FRESH)).isEqualTo(Freshness.FRESH);
        clock.advance(GRACE);
        assertThat(cn(PeerEvidence.NONE, Freshness.FRESH)).isEqualTo(Freshness.STALE);
        clock.advance(Duration.ofMillis(1));
        assertThat(cn(PeerEvidence.NONE, Freshness.STALE)).isEqualTo(Freshness.EXPIRED);
    }

    @Test
    void theLatestLiveReportFromAnotherRegion_isTheEvidence() {
        Instant euAt = T0.plusMillis(300);
        Instant usAt = T0.plusMillis(700);
        PeerEvidence evidence = PeerEvidence.NONE.with(CN, EU, euAt).with(CN, US, usAt).with(CN, EU, T0)
                                                 .with(EU, US, usAt);
        assertThat(evidence.against(CN, T0, T0.plusSeconds(1), TTL))
                .contains(new PeerEvidence.Unreachable(US, usAt));
        assertThat(evidence.reports().get(CN).get(EU)).as("an older report does not replace a newer")
                                                      .isEqualTo(euAt);
    }
}
