package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control plane refuses, in one line, secret-bearing files that others may change or read, and planted links. */
class SecretFilesTest {

    @TempDir
    Path dir;

    @Test
    void aTokensFileOthersMayWrite_isRefusedAtStart() throws Exception {
        Path tokens = Fixtures.tokensFile(dir);
        Files.setPosixFilePermissions(tokens, PosixFilePermissions.fromString("rw-rw-rw-"));

        assertThatThrownBy(() -> ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(tokens).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(tokens + ": the tokens file has mode rw-rw-rw-, open to others (expected: 644 or stricter,"
                            + " as chmod 644 " + tokens + " gives)");
    }

    @Test
    void aTlsKeyOthersMayRead_isRefusedAtStart() throws Exception {
        Path key = Files.writeString(dir.resolve("key.pem"), "not read before its mode is checked");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> ControlServer.builder().port(0).dataDir(dir.resolve("data"))
                .tokens(Fixtures.tokensFile(dir)).tls(dir.resolve("cert.pem"), key).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(key + ": the TLS private key has mode rw-r--r--, open to others (expected: 600");
    }

    @Test
    void aLinkPlantedWhereTheFirstStartWritesTheAdminToken_isRefused_andNothingIsWrittenThrough() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Files.createSymbolicLink(data.resolve("admin-token"), victim);

        assertThatThrownBy(() -> ControlServer.builder().port(0).dataDir(data).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(data.resolve("admin-token").toAbsolutePath() + ": the admin token's file is a symbolic"
                            + " link (expected: a regular file, or none; remove the link)");
        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(data.resolve("tokens")).doesNotExist();
    }

    @Test
    void aLinkPlantedAsTheTokensFile_isRefused() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.createSymbolicLink(data.resolve("tokens"), dir.resolve("nowhere"));

        assertThatThrownBy(() -> ControlServer.builder().port(0).dataDir(data).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(data.resolve("tokens") + ": the tokens file is a symbolic link (expected: a regular file,"
                            + " or none; remove the link)");
    }
}
