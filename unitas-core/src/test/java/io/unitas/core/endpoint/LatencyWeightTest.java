package io.unitas.core.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import org.junit.jupiter.api.Test;

import io.unitas.core.internal.RttWindow;

/** Seed 003 (2.4): {@code weight = max(1, round(1000 / (rtt_ms + 1)))} over a 60 s window. */
class LatencyWeightTest {

    @Test
    void formula_onTheSeedsRtts() {
        // The seed's table prints 121, 40 and 65 beside these RTTs; its own formula gives these.
        assertThat(LatencyWeight.of(8.2)).isEqualTo(109);
        assertThat(LatencyWeight.of(24.7)).isEqualTo(39);
        assertThat(LatencyWeight.of(15.3)).isEqualTo(61);
        assertThat(LatencyWeight.of(0)).isEqualTo(1000);
        assertThat(LatencyWeight.of(-5)).isEqualTo(1000);
        assertThat(LatencyWeight.of(5_000)).isEqualTo(1);
        assertThat(LatencyWeight.of(Double.NaN)).isEqualTo(1);
    }

    @Property
    void weight_isAtLeastOne_andNeverGrowsWithRtt(@ForAll @DoubleRange(min = 0, max = 1e6) double a,
                                                  @ForAll @DoubleRange(min = 0, max = 1e6) double b) {
        assertThat(LatencyWeight.of(a)).isBetween(1, 1000);
        if (a <= b) {
            assertThat(LatencyWeight.of(a)).isGreaterThanOrEqualTo(LatencyWeight.of(b));
        }
    }

    @Test
    void window_forgetsSamplesOlderThan60s() {
        long s = 1_000_000_000L;
        RttWindow w = RttWindow.of(Duration.ofSeconds(60), 20);
        assertThat(w.weight(0, 7)).isEqualTo(7);
        w.record(0, 99 * 1_000_000L);     // 99 ms at t=0
        w.record(30 * s, 9 * 1_000_000L); // 9 ms at t=30s
        assertThat(w.meanMillis(30 * s)).isEqualTo(54.0);
        assertThat(w.weight(30 * s, 7)).isEqualTo(LatencyWeight.of(54.0));
        assertThat(w.meanMillis(60 * s)).isEqualTo(9.0);
        assertThat(w.weight(60 * s, 7)).isEqualTo(100);
        assertThat(w.hasSamples(90 * s)).isFalse();
    }

    @Test
    void window_keepsTheNewestWhenFull() {
        RttWindow w = RttWindow.of(Duration.ofSeconds(60), 2);
        w.record(1, 1_000_000L);
        w.record(2, 3_000_000L);
        w.record(3, 5_000_000L);
        assertThat(w.meanMillis(3)).isEqualTo(4.0);
    }
}
