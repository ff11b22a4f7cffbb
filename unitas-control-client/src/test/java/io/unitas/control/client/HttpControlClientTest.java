package io.unitas.control.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import io.unitas.control.client.internal.ControlResponse;

class HttpControlClientTest {

    @Test
    void aProblemsDetailIsWhatARefusalSays() {
        assertThat(ControlResponse.problemDetail("{\"type\":\"urn:unitas:problem:forbidden\",\"detail\":\"role viewer\"}"))
                .isEqualTo("role viewer");
        assertThat(ControlResponse.problemDetail("<html>bad gateway</html>")).isEqualTo("<html>bad gateway</html>");
    }

    @Test
    void aRefusalsProblemIsReadWithTheOneCodec() {
        ControlResponse refused = new ControlResponse(409, "{\"type\":\"urn:unitas:problem:switchover-refused\","
                                                           + "\"status\":409,\"detail\":\"eu lacks capacity\"}", 0);
        assertThat(refused.problem()).hasValueSatisfying(p -> {
            assertThat(p.type()).isEqualTo("switchover-refused");
            assertThat(p.detail()).isEqualTo("eu lacks capacity");
        });
        assertThat(new ControlResponse(502, "<html>bad gateway</html>", 0).problem()).isEmpty();
        assertThat(new ControlResponse(200, "{}", 3).problem()).isEmpty();
    }

    @Test
    void aResponseBodyThatIsNotJsonIsNamedSo() {
        assertThatThrownBy(() -> new ControlResponse(502, "<html>", 0).json())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not valid JSON: ");
    }
}
