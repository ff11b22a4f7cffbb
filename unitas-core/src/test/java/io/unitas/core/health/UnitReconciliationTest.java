package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.unitas.core.Region;
import org.junit.jupiter.api.Test;

class UnitReconciliationTest {

    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

    private static UnitReconciliation.Pass pass(Instant at) {
        return new UnitReconciliation.Pass(Region.of("cn"), at, Duration.ofSeconds(10), 2, 1, 4, Optional.empty());
    }

    @Test
    void aPassStalls_onlyAfterThreeWindowsWithoutAnother() {
        assertThat(pass(T0).stalled(T0.plusSeconds(30))).isFalse();
        assertThat(pass(T0).stalled(T0.plusSeconds(30).plusMillis(1))).isTrue();
    }

    @Test
    void theOldestSibling_isGivenExactlyWhenSomeAreOpen() {
        assertThat(new UnitReconciliation.Unit(0, Optional.empty(), Optional.of(pass(T0))).openSiblings()).isZero();
        assertThatThrownBy(() -> new UnitReconciliation.Unit(2, Optional.empty(), Optional.empty()))
                .hasMessage("oldest_sibling_at: missing with 2 open siblings (expected: given exactly when some are "
                            + "open)");
        assertThatThrownBy(() -> new UnitReconciliation.Unit(0, Optional.of(T0), Optional.empty()))
                .hasMessageContaining("with 0 open siblings");
        assertThatThrownBy(() -> new UnitReconciliation.Unit(-1, Optional.empty(), Optional.empty()))
                .hasMessage("open_siblings: -1 (expected: >= 0)");
    }

    @Test
    void aPassRefusesAnEmptyWindowAndNegativeCounts() {
        assertThatThrownBy(() -> new UnitReconciliation.Pass(Region.of("cn"), T0, Duration.ZERO, 0, 0, 0,
                                                             Optional.empty()))
                .hasMessage("window_ms: 0 (expected: > 0)");
        assertThatThrownBy(() -> new UnitReconciliation.Pass(Region.of("cn"), T0, Duration.ofSeconds(1), 0, -1, 0,
                                                             Optional.empty()))
                .hasMessageContaining("ranges_pending: -1");
    }

    @Test
    void noneIsNotKnown_andWhatWasReadIs() {
        assertThat(UnitReconciliation.NONE.known()).isFalse();
        assertThat(UnitReconciliation.of(T0, java.util.Map.of()).known()).isTrue();
    }
}
