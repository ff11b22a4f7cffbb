package io.unitas.dns;

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
 * {@code dns.yaml} fed bytes it did not expect: read, or refused with a {@link ConfigException} naming the problem,
 * never another exception. {@code verify} runs mutations of a full example; a coverage-guided run:
 * {@code JAZZER_FUZZ=1 mvn -pl unitas-dns -am verify -Dtest=DnsConfigFuzzTest#fuzzDnsYaml
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class DnsConfigFuzzTest {

    private static final Path FILE = tempFile();

    static void dnsYaml(byte[] in) {
        expectOnly(in, b -> {
            Files.write(FILE, b);
            DnsConfig.read(FILE);
        }, ConfigException.class);
    }

    @Property(tries = 300)
    void dnsYaml_mutated(@ForAll long random) {
        dnsYaml(mutate(seed(getClass(), "/fuzz/dns.yaml"), new Random(random)));
    }

    @org.junit.jupiter.api.Test
    void theSeedReads_soMutationsReachEveryCheck() throws IOException {
        Files.write(FILE, seed(getClass(), "/fuzz/dns.yaml"));
        org.assertj.core.api.Assertions.assertThat(DnsConfig.read(FILE).records()).hasSize(2);
    }

    @FuzzTest
    void fuzzDnsYaml(byte[] in) {
        dnsYaml(in);
    }

    /** {@code dns.yaml} beside the topology and health files it names, so its checks against them run too. */
    private static Path tempFile() {
        try {
            Path dir = Files.createTempDirectory("dns-fuzz");
            dir.toFile().deleteOnExit();
            Files.writeString(dir.resolve("topology.yaml"), ZoneFiles.TOPOLOGY).toFile().deleteOnExit();
            Files.writeString(dir.resolve("health.yaml"), "{cn: true, eu: true, us: true}\n").toFile()
                 .deleteOnExit();
            dir.resolve("dns.yaml").toFile().deleteOnExit();
            return dir.resolve("dns.yaml");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
