package io.unitas.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/** Where the installed PostgreSQL server's programs ({@code initdb}, {@code pg_ctl}, …) are. */
final class PostgresInstall {

    /** The one-line error when there is none, naming what to install. */
    static final String MISSING = "PostgreSQL server not found: no initdb and pg_ctl on the PATH or under "
                                  + "/usr/lib/postgresql/*/bin (install the PostgreSQL server, e.g. "
                                  + "apt-get install postgresql)";

    private PostgresInstall() {}

    /**
     * The directory of the server's programs: the one {@code initdb} on the PATH links to, else the newest version
     * under {@code /usr/lib/postgresql} (Debian's layout); {@link IllegalStateException} with {@link #MISSING}.
     */
    static Path binDir() {
        return binDir(System.getenv().getOrDefault("PATH", ""), Path.of("/usr/lib/postgresql"));
    }

    /** {@link #binDir()} with the search path and Debian's root given. */
    static Path binDir(String path, Path debianRoot) {
        return onPath(path).or(() -> debian(debianRoot)).orElseThrow(() -> new IllegalStateException(MISSING));
    }

    private static Optional<Path> onPath(String path) {
        for (String entry : path.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path initdb = Path.of(entry, "initdb");
            if (Files.isExecutable(initdb) && Files.isExecutable(Path.of(entry, "pg_ctl"))) {
                try {
                    // Debian links /usr/bin wrappers or /usr/local/bin links to the versioned directory.
                    Path real = initdb.toRealPath().getParent();
                    return Optional.of(Files.isExecutable(real.resolve("pg_ctl")) ? real : initdb.getParent());
                } catch (IOException e) {
                    return Optional.of(initdb.getParent());
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> debian(Path root) {
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                           .filter(b -> Files.isExecutable(b.resolve("initdb")))
                           .max(Comparator.comparingInt(PostgresInstall::version));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int version(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
