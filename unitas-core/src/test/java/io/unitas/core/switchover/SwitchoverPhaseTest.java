package io.unitas.core.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which phases end a switchover, which fence its units, and how each is named in JSON. */
class SwitchoverPhaseTest {

    @ParameterizedTest(name = "{0}: terminal {1}, fenced {2}")
    @CsvSource({
            "FENCING,     fencing,     false, false",
            "CATCHING_UP, catching_up, false, true",
            "FLIPPED,     flipped,     false, true",
            "COMPLETED,   completed,   true,  false",
            "ROLLED_BACK, rolled_back, true,  false",
            "ABORTED,     aborted,     true,  false",
    })
    void eachPhase(SwitchoverPhase phase, String json, boolean terminal, boolean fenced) {
        assertThat(phase.terminal()).isEqualTo(terminal);
        assertThat(phase.fenced()).isEqualTo(fenced);
        assertThat(phase.jsonName()).isEqualTo(json);
        assertThat(SwitchoverPhase.fromJson(json)).isEqualTo(phase);
    }
}
