package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.config.internal.SecretFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code unitas relay}'s help and its options refused before anything is served. */
class RelayCommandTest {

    @TempDir
    Path dir;

    @Test
    void help_namesTheUpstreamAndTheResume() {
        Cli res = Cli.run("relay", "--help");

        assertThat(res.exit()).isZero();
        assertThat(res.out()).contains("--upstream=URL", "--token-file=FILE", "--tokens=FILE", "Run a watch relay");
    }

    @Test
    void listeningBeyondLoopbackWithoutTls_isAUsageError() throws Exception {
        Path token = SecretFiles.writePrivate(dir.resolve("token"), "secret\n");
        Cli res = Cli.run("relay", "--upstream", "http://127.0.0.1:1", "--token-file", token.toString(), "--tokens",
                          Files.writeString(dir.resolve("tokens"), "").toString(), "--listen", "0.0.0.0:0");

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).startsWith("unitas relay: listen 0.0.0.0: cleartext beyond loopback");
    }

    @Test
    void anUnreadableTokenFile_isNamed() {
        Cli res = Cli.run("relay", "--upstream", "http://127.0.0.1:1", "--token-file", dir.resolve("nope").toString(),
                          "--tokens", dir.resolve("tokens").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err()).startsWith("unitas relay: --token-file " + dir.resolve("nope") + ": not readable");
    }

    @Test
    void aTokenFileOthersMayRead_isRefused_withTheFix() throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "secret\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
        Cli res = Cli.run("relay", "--upstream", "http://127.0.0.1:1", "--token-file", token.toString(), "--tokens",
                          Files.writeString(dir.resolve("tokens"), "").toString());

        assertThat(res.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(res.err().strip()).isEqualTo("unitas relay: --token-file " + token + ": the relay's upstream token"
                                                + " has mode rw-r--r--, open to others (expected: 600 or stricter, as"
                                                + " chmod 600 " + token + " gives)");
    }
}
