package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code unitas control}'s listen and TLS options, refused before anything is served. */
class ControlCommandTest {

    @TempDir
    Path dir;

    @Test
    void listeningBeyondLoopbackWithoutTls_isAUsageError() {
        Cli res = Cli.run("control", "--listen", "0.0.0.0:0", "--data", dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).startsWith("unitas control: listen 0.0.0.0: not a loopback address, without TLS");
    }

    @Test
    void aCertificateWithoutItsKey_isAUsageError() {
        Cli res = Cli.run("control", "--tls-cert", dir.resolve("c.crt").toString(), "--data",
                          dir.resolve("data").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).contains("--tls-cert and --tls-key go together");
    }
}
