package io.unitas.config.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What unitas writes as a secret is its owner's only, so that its own readers' check accepts it. */
class SecretFilesWriteTest {

    @TempDir
    Path dir;

    @Test
    void aNewSecretFile_isCreatedMode600_andPassesTheCheck() throws Exception {
        Path token = SecretFiles.writePrivate(dir.resolve("viewer.token"), "secret");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token))).isEqualTo("rw-------");
        assertThat(Files.readString(token)).isEqualTo("secret");
        SecretFiles.checkPrivate(token, "the token");
    }

    @Test
    void anExistingFileOpenToOthers_isMadeMode600_beforeTheSecretIsWritten() throws Exception {
        Path token = Files.writeString(dir.resolve("viewer.token"), "old");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

        SecretFiles.writePrivate(token, "new");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(token))).isEqualTo("rw-------");
        assertThat(Files.readString(token)).isEqualTo("new");
    }

    @Test
    void aLinkWhereTheSecretGoes_isRefused_andNothingIsWrittenThrough() throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Path link = Files.createSymbolicLink(dir.resolve("viewer.token"), victim);

        assertThatThrownBy(() -> SecretFiles.writePrivate(link, "secret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(link + ": a secret file is a symbolic link (expected: a regular file, or none; remove the"
                            + " link)");
        assertThat(Files.readString(victim)).isEqualTo("precious");
    }
}
