package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** One timeout for a home read; the two older, overlapping names still set it. */
@SuppressWarnings("deprecation")
class HomeReadTimeoutTest {

    @Test
    void unset_isOneSecond() {
        assertThat(HomeReadTimeout.of(new UnitasProperties())).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theNewName_winsOverTheDeprecatedOnes() {
        UnitasProperties p = new UnitasProperties();
        p.getReadiness().setHomeTimeout(Duration.ofSeconds(2));
        p.getReadiness().getHomeReads().setDeadline(Duration.ofMillis(250));
        p.getReadiness().getHomeReads().setTimeout(Duration.ofMillis(700));
        assertThat(HomeReadTimeout.of(p)).isEqualTo(Duration.ofMillis(700));
    }

    @Test
    void theDeprecatedNames_stillSetIt_theShorterEndingTheRead_asBefore() {
        UnitasProperties p = new UnitasProperties();
        p.getReadiness().setHomeTimeout(Duration.ofSeconds(2));
        assertThat(HomeReadTimeout.of(p)).isEqualTo(Duration.ofSeconds(2));
        p.getReadiness().getHomeReads().setDeadline(Duration.ofMillis(250));
        assertThat(HomeReadTimeout.of(p)).isEqualTo(Duration.ofMillis(250));
    }
}
