package io.unitas.control.client.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The last good state is written so that nobody who can plant a file beside it can make the process write elsewhere. */
class StateFileTest {

    @TempDir
    Path dir;

    @Test
    void writesTheWholeDocument_andReplacesTheOldOne() throws IOException {
        Path file = dir.resolve("state/last-good.json");

        StateFile.replace(file, "{\"revision\":1}");
        StateFile.replace(file, "{\"revision\":2}");

        assertThat(Files.readString(file)).isEqualTo("{\"revision\":2}");
        try (var left = Files.list(file.getParent())) {
            assertThat(left).containsExactly(file);
        }
        assertThat(Files.getPosixFilePermissions(file))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }

    @Test
    void aLinkPlantedAtThePredictableTemporaryName_isNotFollowed() throws IOException {
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Path file = dir.resolve("last-good.json");
        Files.createSymbolicLink(dir.resolve("last-good.json.tmp"), victim);

        StateFile.replace(file, "{\"revision\":3}");

        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.readString(file)).isEqualTo("{\"revision\":3}");
    }

    @Test
    void aStateFileThatIsALink_isRefused_namingIt_andItsTargetIsLeftAlone() throws IOException {
        Path victim = Files.writeString(dir.resolve("victim"), "precious");
        Path file = Files.createSymbolicLink(dir.resolve("last-good.json"), victim);

        assertThatThrownBy(() -> StateFile.replace(file, "{}"))
                .isInstanceOf(IOException.class)
                .hasMessage(file + ": is a symbolic link (expected: a regular file, or none)");
        assertThatThrownBy(() -> StateFile.read(file))
                .isInstanceOf(IOException.class)
                .hasMessage(file + ": is a symbolic link (expected: a regular file, or none)");
        assertThat(Files.readString(victim)).isEqualTo("precious");
    }
}
