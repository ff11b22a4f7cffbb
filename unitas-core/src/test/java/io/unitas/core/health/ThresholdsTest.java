package io.unitas.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class ThresholdsTest {

    @Test
    void oneFailureOrOneSuccess_isTheSmallestThreshold() {
        assertThat(new Thresholds(1, 1)).extracting(Thresholds::fall, Thresholds::rise).containsExactly(1, 1);
    }

    @Test
    void aThresholdBelowOne_isRefused_namingWhichAndWhatWasExpected() {
        assertThatIllegalArgumentException().isThrownBy(() -> new Thresholds(0, 2))
                                            .withMessage("fall: 0 (expected: >= 1)");
        assertThatIllegalArgumentException().isThrownBy(() -> new Thresholds(2, 0))
                                            .withMessage("rise: 0 (expected: >= 1)");
        assertThatIllegalArgumentException().isThrownBy(() -> new Thresholds(2, -3))
                                            .withMessage("rise: -3 (expected: >= 1)");
    }

    @Test
    void gates_areNamedInFilesByTheirLowercaseNames() {
        assertThat(Gate.values()).extracting(Gate::id).containsExactly("healthy", "writable", "none");
    }
}
