package io.unitas.gateway;

import static io.unitas.testkit.Fuzz.expectOnly;
import static io.unitas.testkit.Fuzz.mutate;
import static io.unitas.testkit.Fuzz.seed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import io.unitas.config.ConfigException;

/**
 * {@code gateway.yaml} fed bytes it did not expect: read, or refused with a {@link ConfigException} naming the
 * problem, never another exception. {@code verify} runs mutations of a full example; a coverage-guided run:
 * {@code JAZZER_FUZZ=1 mvn -pl unitas-gateway -am verify -Dtest=GatewayConfigFuzzTest#fuzzGatewayYaml
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class GatewayConfigFuzzTest {

    private static final Path FILE = tempFile();

    static void gatewayYaml(byte[] in) {
        expectOnly(in, b -> {
            Files.write(FILE, b);
            GatewayConfig.read(FILE);
        }, ConfigException.class);
    }

    @Property(tries = 300)
    void gatewayYaml_mutated(@ForAll long random) {
        gatewayYaml(mutate(seed(getClass(), "/fuzz/gateway.yaml"), new Random(random)));
    }

    @FuzzTest
    void fuzzGatewayYaml(byte[] in) {
        gatewayYaml(in);
    }

    private static Path tempFile() {
        try {
            Path dir = Files.createTempDirectory("gateway-fuzz");
            dir.toFile().deleteOnExit();
            return dir.resolve("gateway.yaml");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
