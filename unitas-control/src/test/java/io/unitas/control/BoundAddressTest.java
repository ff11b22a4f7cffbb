package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control plane says where it listens as the socket has it, and where a local client reaches it. */
class BoundAddressTest {

    @Test
    void aLoopbackAddressOtherThan127001_isNamedAsBound_andInItsUri(@TempDir Path dir) {
        try (ControlServer server = ControlServer.builder().host("127.0.0.2").port(0).dataDir(dir.resolve("data"))
                .tokens(Fixtures.tokensFile(dir)).start()) {
            assertThat(server.boundAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.2");
            assertThat(server.boundAddress().getPort()).isEqualTo(server.port());
            assertThat(server.uri()).hasToString("http://127.0.0.2:" + server.port());
        }
    }
}
