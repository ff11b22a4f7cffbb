package io.unitas.data.remote;

import static org.assertj.core.api.Assertions.assertThat;

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

/** Home reads over TLS: HTTP/2 agreed by ALPN, the home's certificate checked against the CA the client trusts. */
class HomeReadTlsTest {

    private static final Region CN = Region.of("cn");
    private static final String TOKEN = "utk_home-read-tls-token";
    private static final StoredEntity ALICE = new StoredEntity(1, "alice".getBytes(StandardCharsets.UTF_8),
                                                               Instant.parse("2026-03-03T09:00:00Z"));

    @TempDir
    static Path dir;
    private static Path cert;
    private static HomeReadServer cn;

    @BeforeAll
    static void startCnWithTls() throws Exception {
        cert = dir.resolve("cn.crt");
        Path key = dir.resolve("cn.key");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                       "-subj", "/CN=localhost", "-addext",
                                       "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key.toString(),
                                       "-out", cert.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(cert)) {
            throw new IOException("openssl req failed (install openssl, see .ci/install-servers): " + out);
        }
        cn = HomeReadServer.builder().region(CN).owns("u-cn"::equals).token(TOKEN)
                           .reader("account", (unit, k) -> Optional.of(ALICE)).tls(cert, key)
                           .meterRegistry(new SimpleMeterRegistry()).start();
    }

    @AfterAll
    static void stop() {
        cn.close();
    }

    private static HomeRead read(HomeReadClient.Builder client) throws Exception {
        try (HomeReadClient c = client.endpoint(CN, cn.uri()).token(TOKEN).deadline(Duration.ofSeconds(10))
                                      .hedgeAfter(Duration.ofSeconds(5)).meterRegistry(new SimpleMeterRegistry())
                                      .build()) {
            return c.read(CN, "u-cn", "account", "alice").toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientTrustingTheHomesCa_readsOverTls() throws Exception {
        assertThat(cn.uri().getScheme()).isEqualTo("https");

        HomeRead r = read(HomeReadClient.builder().trustedCa(cert));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.FOUND);
        assertThat(r.entity()).isEqualTo(ALICE);
    }

    @Test
    void aClientNotTrustingTheHomesCertificate_cannotReadIt() throws Exception {
        HomeRead r = read(HomeReadClient.builder());

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
        assertThat(r.problem().type()).isEqualTo("data-not-ready");
        assertThat(r.detail()).contains("SSLHandshakeException");
    }
}
