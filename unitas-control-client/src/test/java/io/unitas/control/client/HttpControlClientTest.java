package io.unitas.control.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HttpControlClientTest {

    @Test
    void aProblemsDetailIsWhatARefusalSays() {
        assertThat(ControlResponse.problemDetail("{\"type\":\"urn:unitas:problem:forbidden\",\"detail\":\"role viewer\"}"))
                .isEqualTo("role viewer");
        assertThat(ControlResponse.problemDetail("<html>bad gateway</html>")).isEqualTo("<html>bad gateway</html>");
    }

    @Test
    void aResponseBodyThatIsNotJsonIsNamedSo() {
        assertThatThrownBy(() -> new ControlResponse(502, "<html>", 0).json())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not valid JSON: ");
    }
}
