package io.unitas.control.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TransportTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(strings = {"http://control.internal:7070", "http://10.0.0.7:7070", "http://[2001:db8::1]:7070"})
    void cleartextToAnotherHost_isRefusedWithWhatToDoInstead(String url) {
        assertThatThrownBy(() -> ControlClient.of(URI.create(url), "secret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(url).hasMessageContaining("expected: https://, or allow_insecure: true");
    }

    @Test
    void aPasswordInTheUrl_isNeverInAMessage() {
        assertThatThrownBy(() -> ControlClient.of(URI.create("http://ops:hunter2@control.internal:7070"), "secret"))
                .hasMessageContaining("'http://***@control.internal:7070'").hasMessageNotContaining("hunter2");
        ControlClient unreachable = ControlClient.of(URI.create("http://ops:hunter2@127.0.0.1:1"), "secret");
        assertThatThrownBy(() -> unreachable.state())
                .hasMessageStartingWith("http://***@127.0.0.1:1").hasMessageNotContaining("hunter2");
    }

    @ParameterizedTest(name = "{0} is allowed")
    @ValueSource(strings = {"http://127.0.0.1:7070", "http://localhost:7070", "http://[::1]:7070",
                            "http://127.0.0.2:7070", "https://control.internal:8443"})
    void loopbackAndHttps_areAllowed(String url) {
        assertThat(ControlClient.of(URI.create(url), "secret")).isNotNull();
    }

    @Test
    void cleartextToAnotherHost_isAllowedWhenSaidSo() {
        assertThat(ControlClient.builder(URI.create("http://control.internal:7070")).allowInsecure(true).build())
                .isNotNull();
    }

    @Test
    void aCaFileThatIsNotPem_isNamedWithWhatWasExpected() throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");

        assertThatThrownBy(() -> ControlClient.builder(URI.create("https://control.internal:8443")).ca(ca).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("ca: " + ca + ": ")
                .hasMessageContaining("expected: a PEM file of CA certificates");
        assertThatThrownBy(() -> ControlClient.builder(URI.create("https://control.internal:8443"))
                                              .ca(dir.resolve("missing.pem")).build())
                .hasMessageContaining("no such file");
    }
}
