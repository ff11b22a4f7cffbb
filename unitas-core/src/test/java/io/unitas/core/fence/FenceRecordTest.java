package io.unitas.core.fence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

class FenceRecordTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");

    @Test
    void aFenceNamingASwitchover_isThatSwitchovers_andOneWithoutIsAnOperators() {
        assertThat(new FenceRecord("u-sh", "switchover sw-1 to eu", T0, "sw-1").ownedBySwitchover()).isTrue();
        assertThat(new FenceRecord("u-sh", "db repair", T0, "").ownedBySwitchover()).isFalse();
    }
}
