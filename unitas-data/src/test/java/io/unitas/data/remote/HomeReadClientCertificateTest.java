package io.unitas.data.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.unitas.core.Region;

/**
 * Client certificates between regions: a home-read server that requires one ({@code clientCa}) serves a caller whose
 * certificate its CA issued, and refuses in the TLS handshake a caller without one or with a certificate of another
 * issuer, token or not. Real certificates: a CA, the home's server certificate and eu's client certificate issued by
 * it, and a self-signed one, made by openssl.
 */
class HomeReadClientCertificateTest {

    private static final Region CN = Region.of("cn");
    private static final String TOKEN = "utk_home-read-mtls-token";
    private static final StoredEntity ALICE = new StoredEntity(1, "alice".getBytes(StandardCharsets.UTF_8),
                                                               Instant.parse("2026-03-03T09:00:00Z"));

    @TempDir
    static Path dir;
    private static HomeReadServer cn;

    private static void openssl(String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = "openssl";
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("openssl " + String.join(" ", args) + " failed (install openssl, see"
                                  + " .ci/install-servers): " + out);
        }
    }

    /** A key and a certificate for {@code name}, issued by the test CA with the {@code extensions} given. */
    private static void issue(String name, String subject, String extensions) throws Exception {
        Files.writeString(dir.resolve(name + ".ext"), extensions + "\n");
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", name + ".key",
                "-out", name + ".csr");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt");
    }

    @BeforeAll
    static void startCnRequiringClientCertificates() throws Exception {
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=unitas regions CA",
                "-keyout", "ca.key", "-out", "ca.crt");
        issue("cn", "/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth");
        issue("eu", "/CN=eu", "extendedKeyUsage=clientAuth");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=eu",
                "-keyout", "rogue.key", "-out", "rogue.crt");
        cn = HomeReadServer.builder().region(CN).owns("u-cn"::equals).token(TOKEN)
                           .reader("account", (unit, k) -> Optional.of(ALICE))
                           .tls(dir.resolve("cn.crt"), dir.resolve("cn.key")).clientCa(dir.resolve("ca.crt"))
                           .meterRegistry(new SimpleMeterRegistry()).start();
    }

    @AfterAll
    static void stop() {
        if (cn != null) {
            cn.close();
        }
    }

    private static HomeRead read(HomeReadClient.Builder client) throws Exception {
        try (HomeReadClient c = client.endpoint(CN, cn.uri()).token(TOKEN).trustedCa(dir.resolve("ca.crt"))
                                      .deadline(Duration.ofSeconds(10)).hedgeAfter(Duration.ofSeconds(5))
                                      .meterRegistry(new SimpleMeterRegistry()).build()) {
            return c.read(CN, "u-cn", "account", "alice").toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCallerWithACertificateOfTheRegionsCa_reads() throws Exception {
        HomeRead r = read(HomeReadClient.builder().clientCertificate(dir.resolve("eu.crt"), dir.resolve("eu.key")));

        assertThat(r.outcome()).as(r.detail()).isEqualTo(HomeRead.Outcome.FOUND);
        assertThat(r.entity()).isEqualTo(ALICE);
    }

    @Test
    void aCallerWithoutACertificate_isRefusedInTheHandshake_evenWithTheToken() throws Exception {
        HomeRead r = read(HomeReadClient.builder());

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
        assertThat(r.problem().type()).isEqualTo("data-not-ready");
    }

    @Test
    void aCallerWithACertificateOfAnotherIssuer_isRefused() throws Exception {
        HomeRead r = read(HomeReadClient.builder().clientCertificate(dir.resolve("rogue.crt"),
                                                                     dir.resolve("rogue.key")));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
    }

    @Test
    void clientCaWithoutTls_isRefusedAtStart() {
        assertThatThrownBy(() -> HomeReadServer.builder().region(CN).owns("u-cn"::equals).token(TOKEN)
                                               .reader("account", (unit, k) -> Optional.of(ALICE))
                                               .clientCa(dir.resolve("ca.crt")).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("clientCa: " + dir.resolve("ca.crt") + " without TLS (expected: tls(cert, key)");
    }
}
