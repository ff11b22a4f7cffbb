package io.unitas.control.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OperationTest {

    @Test
    void anIdThatIsNoPlainSegment_staysOneSegment() {
        assertThat(Operation.LIFT_FENCE.path("u/sh 1?x=%")).isEqualTo("/api/v1/fences/u%2Fsh%201%3Fx%3D%25");
        assertThat(Operation.REPORT_UNREACHABLE.path("cn")).isEqualTo("/api/v1/health/cn/unreachable");
        assertThat(Operation.GET_STATE.path()).isEqualTo("/api/v1/state");
    }

    @Test
    void aMissingOrEmptyId_isRefused_neverSentAsTheCollection() {
        assertThatThrownBy(() -> Operation.LIFT_FENCE.path("")).hasMessage("liftFence: {unit}: empty (expected: an id)");
        assertThatThrownBy(() -> Operation.LIFT_FENCE.path()).hasMessageContaining("expected: more");
        assertThatThrownBy(() -> Operation.GET_STATE.path("x")).hasMessageContaining("expected: 0");
    }
}
