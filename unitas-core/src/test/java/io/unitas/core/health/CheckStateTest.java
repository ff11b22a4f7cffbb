package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

class CheckStateTest {

    private static final Thresholds FALL_2_RISE_3 = new Thresholds(2, 3);
    private static final Duration STALE = Duration.ofSeconds(3);
    private static final ProbeResult OK = ProbeResult.up(Duration.ofMillis(4), "primary, writable", 0, Map.of());
    private static final ProbeResult READ_ONLY =
            ProbeResult.down(Duration.ofMillis(3), "read-only (transaction_read_only=on)");

    /** A fake clock: each step is half a second after the last. */
    private Instant now = Instant.parse("2026-11-30T14:00:00Z");

    private CheckState feed(CheckState state, ProbeResult... results) {
        for (ProbeResult result : results) {
            now = now.plusMillis(500);
            state = state.next(result, FALL_2_RISE_3, now);
        }
        return state;
    }

    @Test
    void beforeAnyResult_theCheckIsDownForNoResultYet() {
        CheckReport report = CheckState.initial(now).report(now, STALE);

        assertThat(report.up()).isFalse();
        assertThat(report.reason()).isEqualTo("no result yet");
    }

    @Test
    void theFirstResultDecidesAtOnce() {
        assertThat(feed(CheckState.initial(now), OK).up()).isTrue();
        assertThat(feed(CheckState.initial(now), READ_ONLY).up()).isFalse();
    }

    @Test
    void anUpCheckGoesDownOnlyAfterFallConsecutiveFailures() {
        CheckState up = feed(CheckState.initial(now), OK);

        CheckState once = feed(up, READ_ONLY);
        assertThat(once.up()).isTrue();
        assertThat(once.report(now, STALE).reason()).isEmpty();

        CheckState twice = feed(once, READ_ONLY);
        assertThat(twice.up()).isFalse();
        assertThat(twice.since()).isEqualTo(now);
        assertThat(twice.report(now, STALE).reason()).isEqualTo("read-only (transaction_read_only=on)");
    }

    @Test
    void aSuccessBetweenFailuresResetsTheCount() {
        CheckState state = feed(CheckState.initial(now), OK, READ_ONLY, OK, READ_ONLY);

        assertThat(state.up()).isTrue();
        assertThat(state.contrary()).isEqualTo(1);
    }

    @Test
    void aDownCheckComesBackOnlyAfterRiseConsecutiveSuccesses() {
        CheckState down = feed(CheckState.initial(now), READ_ONLY);

        CheckState recovering = feed(down, OK, OK);
        assertThat(recovering.up()).isFalse();
        assertThat(recovering.report(now, STALE).reason())
                .isEqualTo("read-only (transaction_read_only=on) (recovering: 2 success(es) so far)");

        assertThat(feed(recovering, OK).up()).isTrue();
    }

    @Test
    void aCheckWithoutResultsForLongerThanStaleAfterIsDownWhateverItsVerdict() {
        CheckState up = feed(CheckState.initial(now), OK);

        assertThat(up.report(now.plus(STALE), STALE).up()).isTrue();
        CheckReport stale = up.report(now.plus(STALE).plusMillis(1), STALE);
        assertThat(stale.up()).isFalse();
        assertThat(stale.reason()).isEqualTo("no result for 3001ms (expected: within 3000ms)");
    }

    @Test
    void theReportCarriesTheLastLatencyLagAndDetails() {
        ProbeResult standby = ProbeResult.up(Duration.ofMillis(7), "standby", 1200, Map.of("role", "standby"));

        CheckReport report = feed(CheckState.initial(now), standby).report(now, STALE);

        assertThat(report).isEqualTo(new CheckReport(true, 7, "", 1200, Map.of("role", "standby")));
    }

    @Test
    void anInvertedCheckFlipsOnlyAFreshVerdict() {
        CheckState initial = CheckState.initial(now);
        CheckState failing = feed(initial, READ_ONLY);

        assertThat(initial.report(now, STALE, true).reason()).isEqualTo("no result yet");
        assertThat(failing.report(now, STALE, true).up()).isTrue();
        assertThat(failing.report(now.plus(STALE).plusMillis(1), STALE, true).up()).isFalse();
    }

    @Test
    void invertingFlipsTheVerdict() {
        CheckReport up = new CheckReport(true, 1, "", -1, Map.of());

        assertThat(up.inverted().up()).isFalse();
        assertThat(up.inverted().reason()).isEqualTo("inverted: the check passes");
        assertThat(up.inverted().inverted()).isEqualTo(up);
    }
}
