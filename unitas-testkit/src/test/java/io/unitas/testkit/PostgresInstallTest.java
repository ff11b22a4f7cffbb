package io.unitas.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the PostgreSQL server's programs are found, and the one line that says what to install when they are not. */
class PostgresInstallTest {

    @TempDir
    Path dir;

    @Test
    void initdb_on_the_path_is_followed_to_its_versioned_directory() throws IOException {
        Path versioned = programs(dir.resolve("lib/postgresql/15/bin"));
        Path links = Files.createDirectories(dir.resolve("local/bin"));
        Files.createSymbolicLink(links.resolve("initdb"), versioned.resolve("initdb"));
        Files.createSymbolicLink(links.resolve("pg_ctl"), versioned.resolve("pg_ctl"));

        assertThat(PostgresInstall.binDir("/nowhere:" + links, dir.resolve("none"))).isEqualTo(versioned.toRealPath());
    }

    @Test
    void without_one_on_the_path_the_newest_debian_version_is_taken() throws IOException {
        programs(dir.resolve("lib/postgresql/9/bin"));
        Path newest = programs(dir.resolve("lib/postgresql/16/bin"));

        assertThat(PostgresInstall.binDir("/nowhere", dir.resolve("lib/postgresql"))).isEqualTo(newest);
    }

    @Test
    void without_any_the_error_is_one_line_naming_what_to_install() {
        assertThatThrownBy(() -> PostgresInstall.binDir("/nowhere", dir.resolve("none")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("PostgreSQL server not found: no initdb and pg_ctl on the PATH or under "
                            + "/usr/lib/postgresql/*/bin (install the PostgreSQL server, e.g. apt-get install "
                            + "postgresql)");
    }

    private static Path programs(Path bin) throws IOException {
        Files.createDirectories(bin);
        for (String name : new String[] {"initdb", "pg_ctl"}) {
            Files.createFile(bin.resolve(name), PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwxr-xr-x")));
        }
        return bin;
    }
}
