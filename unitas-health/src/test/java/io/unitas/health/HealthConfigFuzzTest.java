package io.unitas.health;

import static io.unitas.testkit.Fuzz.expectOnly;
import static io.unitas.testkit.Fuzz.mutate;
import static io.unitas.testkit.Fuzz.seed;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import io.unitas.config.ConfigException;

/**
 * {@code health.yaml} fed bytes it did not expect: read, or refused with a {@link ConfigException} naming every
 * problem, never another exception. {@code verify} runs mutations of the documented example; a coverage-guided run:
 * {@code JAZZER_FUZZ=1 mvn -pl unitas-health -am verify -Dtest=HealthConfigFuzzTest#fuzzHealthYaml
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class HealthConfigFuzzTest {

    static void healthYaml(byte[] in) {
        expectOnly(in, b -> HealthConfig.parse("health.yaml", new String(b, StandardCharsets.UTF_8)),
                   ConfigException.class);
    }

    @Property(tries = 300)
    void healthYaml_mutated(@ForAll long random) {
        healthYaml(mutate(seed(getClass(), "/fuzz/health.yaml"), new Random(random)));
    }

    @FuzzTest
    void fuzzHealthYaml(byte[] in) {
        healthYaml(in);
    }
}
