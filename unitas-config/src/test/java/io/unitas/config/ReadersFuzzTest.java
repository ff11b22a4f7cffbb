package io.unitas.config;

import static io.unitas.testkit.Fuzz.expectOnly;
import static io.unitas.testkit.Fuzz.mutate;
import static io.unitas.testkit.Fuzz.seed;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import com.code_intelligence.jazzer.junit.FuzzTest;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.Topology;
import io.unitas.core.consistency.ConsistencyCheck;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.consistency.Locator;
import io.unitas.core.consistency.MeasuredLag;

/**
 * Every reader of outside input in this module, fed bytes it did not expect: it returns a value or refuses with its
 * documented exception, never anything else. In {@code verify} the properties run {@value #TRIES} mutations of a real
 * document per reader, and the {@code @FuzzTest}s replay their saved inputs; a coverage-guided run of one target
 * (docs/robustness.md): {@code JAZZER_FUZZ=1 mvn -pl unitas-config -am verify -Dtest=ReadersFuzzTest#fuzzTopology
 * -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration=10m}.
 */
class ReadersFuzzTest {

    private static final int TRIES = 300;
    private static final Topology TOPOLOGY = TopologyFile.parse(
            ConfigDocument.parse("t.yaml", new String(seed(ReadersFuzzTest.class, "/fuzz/topology.yaml"),
                                                      StandardCharsets.UTF_8)));

    static void topologyYaml(byte[] in) {
        expectOnly(in, b -> TopologyFile.parse(ConfigDocument.parse("topology.yaml", text(b))), ConfigException.class);
    }

    static void topologyJson(byte[] in) {
        expectOnly(in, b -> TopologyFile.parse(ConfigDocument.parse("topology.json", text(b))), ConfigException.class);
    }

    static void rules(byte[] in) {
        expectOnly(in, b -> UnitRulesFile.parse(ConfigDocument.parse("rules.yaml", text(b)), TOPOLOGY),
                   ConfigException.class);
    }

    static void healthFile(byte[] in) {
        expectOnly(in, b -> HealthFile.parse(ConfigDocument.parse("health.json", text(b)), TOPOLOGY),
                   ConfigException.class);
    }

    static void healthReport(byte[] in) {
        expectOnly(in, b -> HealthReportJson.read(text(b)), ConfigException.class);
    }

    /** A contract that reads is also checked: neither its problems nor the check may throw. */
    static void consistency(byte[] in, String name) {
        expectOnly(in, b -> {
            ConsistencyContract contract = ConsistencyFile.parse(ConfigDocument.parse(name, text(b)));
            contract.problems(TOPOLOGY, Set.of("u-paris"));
            ConsistencyCheck.check(contract, ConsistencyCheck.Environment.of(TOPOLOGY, Locator.of("t.yaml"),
                    Map.of("u-paris", TOPOLOGY.regions().get(0)), Optional.of(new MeasuredLag(List.of()))));
        }, ConfigException.class);
    }

    static void lag(byte[] in) {
        expectOnly(in, b -> MeasuredLagFile.parse(ConfigDocument.parse("lag.yaml", text(b))), ConfigException.class);
    }

    static void problem(byte[] in) {
        expectOnly(in, b -> ProblemJson.decode(b, 503, Duration.ZERO), IllegalArgumentException.class);
    }

    @Property(tries = TRIES)
    void topologyYaml_mutated(@ForAll long random) {
        topologyYaml(mutate(seed(getClass(), "/fuzz/topology.yaml"), new Random(random)));
    }

    @Property(tries = TRIES)
    void topologyJson_mutated(@ForAll long random) {
        topologyJson(mutate(seed(getClass(), "/fuzz/topology.json"), new Random(random)));
    }

    @Property(tries = TRIES)
    void rules_mutated(@ForAll long random) {
        rules(mutate(seed(getClass(), "/fuzz/rules.yaml"), new Random(random)));
    }

    @Property(tries = TRIES)
    void healthFile_mutated(@ForAll long random) {
        healthFile(mutate(seed(getClass(), "/fuzz/health.json"), new Random(random)));
    }

    @Property(tries = TRIES)
    void healthReport_mutated(@ForAll long random) {
        healthReport(mutate(seed(getClass(), "/fuzz/report.json"), new Random(random)));
    }

    @Property(tries = TRIES)
    void problem_mutated(@ForAll long random) {
        problem(mutate(seed(getClass(), "/fuzz/problem.json"), new Random(random)));
    }

    @Property(tries = TRIES)
    void consistency_mutated(@ForAll long random) {
        consistency(mutate(seed(getClass(), "/fuzz/consistency.yaml"), new Random(random)), "consistency.yaml");
    }

    @Property(tries = TRIES)
    void openApi_mutated(@ForAll long random) {
        consistency(mutate(seed(getClass(), "/fuzz/openapi.yaml"), new Random(random)), "openapi.yaml");
    }

    @Property(tries = TRIES)
    void lag_mutated(@ForAll long random) {
        lag(mutate(seed(getClass(), "/fuzz/lag.yaml"), new Random(random)));
    }

    @FuzzTest
    void fuzzConsistency(byte[] in) {
        consistency(in, "consistency.yaml");
        consistency(in, "consistency.json");
        lag(in);
    }

    @FuzzTest
    void fuzzTopology(byte[] in) {
        topologyYaml(in);
        topologyJson(in);
    }

    @FuzzTest
    void fuzzRules(byte[] in) {
        rules(in);
    }

    @FuzzTest
    void fuzzHealth(byte[] in) {
        healthFile(in);
        healthReport(in);
    }

    @FuzzTest
    void fuzzProblem(byte[] in) {
        problem(in);
    }

    private static String text(byte[] in) {
        return new String(in, StandardCharsets.UTF_8);
    }
}
