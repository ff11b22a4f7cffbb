package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.junit.jupiter.api.Test;

/**
 * The server distribution, the packaged {@code unitas.jar}, as it ships: the servers' commands without the
 * playground, the test servers, the example services or Spring (they are in {@code unitas-playground.jar}).
 */
class ServerJarIT {

    /** What must not be inside, as entry-name prefixes (also under META-INF/versions/N/ of a multi-release jar). */
    private static final List<String> FORBIDDEN = List.of(
            "org/springframework/",   // Spring, which the example services run on
            "io/unitas/playground/",  // the playground and its commands (io.unitas.playground.cli)
            "io/unitas/testkit/",     // the test servers' launchers (PostgreSQL, MariaDB, Redis, etcd, Kafka)
            "io/unitas/example/",     // the example services (examples/order-inventory, examples/wallet)
            "io/unitas/spring/",      // the Spring Boot starter
            "kafka/");                // the Kafka broker the playground starts (kafka.Kafka)

    private static List<String> entries() throws IOException {
        try (ZipFile jar = new ZipFile(Path.of("target", "unitas.jar").toFile())) {
            return jar.stream().map(ZipEntry::getName).map(n -> n.replaceFirst("^META-INF/versions/\\d+/", ""))
                      .toList();
        }
    }

    @Test
    void holdsNoClassOfThePlaygroundTheTestkitTheExamplesOrSpring() throws IOException {
        List<String> entries = entries();

        assertThat(entries.stream().filter(n -> FORBIDDEN.stream().anyMatch(n::startsWith)).limit(20))
                .as("entries of %s", FORBIDDEN).isEmpty();
        assertThat(entries).doesNotContain("META-INF/services/io.unitas.cli.CommandSet");
    }

    @Test
    void holdsTheServersCommands() throws IOException {
        assertThat(entries()).contains("io/unitas/cli/Main.class", "io/unitas/cli/GatewayCommand.class",
                                       "io/unitas/cli/PlaygroundCommands.class", "io/unitas/gateway/Gateway.class",
                                       "io/unitas/control/ControlServer.class", "io/unitas/dns/DnsServer.class",
                                       "io/unitas/health/HealthServer.class", "io/unitas/cli/version.properties");
    }
}
