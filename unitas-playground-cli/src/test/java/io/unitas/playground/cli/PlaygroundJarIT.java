package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The packaged {@code unitas-playground.jar} holds what its processes run: the {@code unitas} command with the
 * playground's commands registered, the wallet service and the Kafka broker, so that {@code up --processes} can start
 * every JVM from it.
 */
class PlaygroundJarIT {

    @Test
    void holdsTheCommandThePlaygroundsCommandsTheWalletAndTheBroker() throws IOException {
        try (ZipFile jar = new ZipFile(Path.of("target", "unitas-playground.jar").toFile())) {
            List<String> entries = jar.stream().map(ZipEntry::getName).toList();
            assertThat(entries).contains("io/unitas/cli/Main.class", "io/unitas/cli/GatewayCommand.class",
                                         "io/unitas/playground/cli/DemoCommand.class",
                                         "io/unitas/example/wallet/WalletService.class", "kafka/Kafka.class",
                                         "io/unitas/cli/version.properties");
            ZipEntry services = jar.getEntry("META-INF/services/io.unitas.cli.CommandSet");
            assertThat(services).isNotNull();
            try (InputStream in = jar.getInputStream(services)) {
                assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .contains(PlaygroundCommandSet.class.getName());
            }
        }
    }
}
