package io.unitas.control.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.config.ConfigException;
import io.unitas.config.internal.ConfigDocument;
import io.unitas.control.client.state.StateSource;

/** A follower's {@code control_plane.token_file} is checked as ssh checks its keys: its owner's only, not a link. */
class StateSourceReaderTest {

    @TempDir
    Path dir;

    private StateSource read(String tokenFile) {
        String yaml = "region: cn\ncontrol_plane: {url: 'http://127.0.0.1:7070', token_file: " + tokenFile
                      + ", state_file: state.json}\n";
        return StateSourceReader.read(ConfigDocument.parse("gateway.yaml", yaml), dir, true);
    }

    @Test
    void aTokenFileOthersMayRead_isRefused_namingTheFileAndTheFix() throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "secret\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> read("token"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("gateway.yaml:2: control_plane.token_file: " + token + ": the control-plane token has"
                            + " mode rw-r--r--, open to others (expected: 600 or stricter, as chmod 600 " + token
                            + " gives)");
    }

    @Test
    void aTokenFileThatIsALink_isRefused() throws Exception {
        Path real = Files.writeString(dir.resolve("real"), "secret\n");
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-------"));
        Path link = Files.createSymbolicLink(dir.resolve("token"), real);

        assertThatThrownBy(() -> read("token"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("gateway.yaml:2: control_plane.token_file: " + link + ": the control-plane token is a"
                            + " symbolic link (expected: a regular file, or none; remove the link)");
    }

    @Test
    void aTokenFileOfItsOwnerOnly_isRead() throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "secret\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));

        assertThat(((StateSource.ControlPlane) read("token")).tokenFile()).isEqualTo(token);
    }
}
