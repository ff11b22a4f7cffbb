package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;

/** The tokens file is followed by a running control plane: added and revoked tokens count, a broken edit does not. */
class TokensReloadTest {

    @TempDir
    Path dir;
    private Path tokens;
    private ControlServer server;

    @BeforeEach
    void start() {
        tokens = Fixtures.tokensFile(dir);
        server = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(tokens).start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private int statusWith(ControlToken token) {
        return RawClient.of(server.uri(), token.secret()).get("/api/v1/state").status();
    }

    /** The status with {@code token} once it is {@code expected}, or the last one seen after 5 s. */
    private int awaitStatus(ControlToken token, int expected) throws InterruptedException {
        int status = statusWith(token);
        for (int i = 0; i < 50 && status != expected; i++) {
            Thread.sleep(100);
            status = statusWith(token);
        }
        return status;
    }

    @Test
    void aTokenAddedToTheFileIsAcceptedAndARevokedOneRefusedWithoutARestart() throws Exception {
        ControlToken late = ControlToken.generate("late", Role.VIEWER);
        assertThat(statusWith(late)).isEqualTo(401);

        Files.writeString(tokens, late.fileLine() + "\n", StandardOpenOption.APPEND);
        assertThat(awaitStatus(late, 200)).isEqualTo(200);

        Files.writeString(tokens, Files.readString(tokens).replace(late.fileLine() + "\n", ""));
        assertThat(awaitStatus(late, 401)).isEqualTo(401);
        assertThat(statusWith(Fixtures.VIEWER)).isEqualTo(200);
    }

    @Test
    void aBrokenEditIsRefusedAndTheTokensBeforeItStayInForce() throws Exception {
        Files.writeString(tokens, "watcher viewer not-a-hash\n");
        Thread.sleep(1500); // past the next look at the file

        assertThat(statusWith(Fixtures.VIEWER)).isEqualTo(200);
        assertThat(statusWith(Fixtures.ADMIN)).isEqualTo(200);
    }
}
