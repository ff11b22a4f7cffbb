package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.core.health.UnitLag;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.Session;
import io.unitas.playground.store.StoreMode;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Per-unit lag from the replicator's positions, on a controlled clock: only a unit's own pending changes count. */
class UnitLagMeterTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");

    private final Layout layout = new Layout(List.of(CN, EU, US), 20_000);
    private final MutableClock clock = new MutableClock(T0);
    private final RegionalStore cn = RegionalStore.embedded(CN, clock);
    private final RegionalStore eu = RegionalStore.embedded(EU, clock);
    private final RegionalStore us = RegionalStore.embedded(US, clock);
    private final Replicator replicator = Replicator.builder().stores(cn, eu, us).clock(clock).build();
    private final UnitLagMeter meter = new UnitLagMeter(cn, layout.regions(), replicator, layout.rules(), clock);

    @AfterEach
    void close() {
        replicator.close();
        List.of(cn, eu, us).forEach(RegionalStore::close);
    }

    private void write(Region home, long seq) {
        String user = layout.userId(home, seq);
        cn.putAccount(new Account(user, Layout.unitOf(home), home, "n", clock.instant()));
        cn.putSession(new Session("t-" + user, user, clock.instant().plusSeconds(600)));
    }

    @Test
    void aUnitsLag_isTheAgeOfItsOldestUnappliedChange_perTarget_andZeroOnceApplied() {
        write(CN, 1);
        clock.advance(Duration.ofMillis(300));
        write(EU, 1);
        clock.advance(Duration.ofMillis(200));
        Instant now = clock.instant();

        assertThat(meter.unitLags()).containsExactly(
                new UnitLag("u-cn", EU, 500, now), new UnitLag("u-eu", EU, 200, now), new UnitLag("u-us", EU, 0, now),
                new UnitLag("u-cn", US, 500, now), new UnitLag("u-eu", US, 200, now), new UnitLag("u-us", US, 0, now));

        replicator.pause(CN, US);
        replicator.replicateDue();
        clock.advance(Duration.ofMillis(100));
        now = clock.instant();
        assertThat(meter.unitLags()).containsExactly(
                new UnitLag("u-cn", EU, 0, now), new UnitLag("u-eu", EU, 0, now), new UnitLag("u-us", EU, 0, now),
                new UnitLag("u-cn", US, 600, now), new UnitLag("u-eu", US, 300, now), new UnitLag("u-us", US, 0, now));
    }

    @Test
    void anOriginThatCannotBeRead_reportsNothing_soEveryUnitIsUnknown() {
        write(CN, 1);
        cn.mode(StoreMode.UNAVAILABLE);

        assertThat(meter.unitLags()).isEmpty();
    }
}
