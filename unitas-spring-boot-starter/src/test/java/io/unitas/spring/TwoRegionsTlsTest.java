package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.unitas.testkit.Ports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The two regions of {@link TwoRegionsTest} with their home-read servers on TLS ({@code server.tls-cert},
 * {@code server.tls-key}) and each trusting the other's certificate ({@code ca}), requiring a client certificate
 * ({@code server.client-ca}) and presenting one ({@code client-cert}, {@code client-key}): a claim and a read cross
 * over HTTP/2 on mutual TLS, and a caller without a client certificate is refused.
 */
class TwoRegionsTlsTest {

    @TempDir
    static Path dir;

    private static String euDb;
    private static String usDb;
    private static ConfigurableApplicationContext eu;
    private static ConfigurableApplicationContext us;
    private static Path certificate;

    @BeforeAll
    static void startBothRegionsOnTls() throws Exception {
        Path cert = dir.resolve("regions.crt");
        Path key = dir.resolve("regions.key");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                       "-subj", "/CN=localhost", "-addext",
                                       "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key.toString(),
                                       "-out", cert.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(cert)) {
            throw new IOException("openssl req failed (install openssl, see .ci/install-servers): " + out);
        }
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        euDb = "wallet_tls_eu_" + suffix;
        usDb = "wallet_tls_us_" + suffix;
        TwoRegionsTest.PG.execute("CREATE DATABASE " + euDb, "CREATE DATABASE " + usDb);
        int euReads = Ports.free();
        int usReads = Ports.free();
        // one self-signed certificate: each region's server certificate, the client certificate it presents, and the
        // CA both trust, for server and for client certificates
        String[] tls = {"--unitas.readiness.home-reads.server.tls-cert=" + cert,
                        "--unitas.readiness.home-reads.server.tls-key=" + key,
                        "--unitas.readiness.home-reads.server.client-ca=" + cert,
                        "--unitas.readiness.home-reads.ca=" + cert,
                        "--unitas.readiness.home-reads.client-cert=" + cert,
                        "--unitas.readiness.home-reads.client-key=" + key};
        certificate = cert;
        us = TwoRegionsTest.region("us", usDb, usReads, "eu", "https://127.0.0.1:" + euReads, tls);
        eu = TwoRegionsTest.region("eu", euDb, euReads, "us", "https://127.0.0.1:" + usReads, tls);
    }

    @AfterAll
    static void stop() {
        if (eu != null) {
            eu.close();
        }
        if (us != null) {
            us.close();
        }
        TwoRegionsTest.PG.execute("DROP DATABASE IF EXISTS " + euDb + " WITH (FORCE)",
                                  "DROP DATABASE IF EXISTS " + usDb + " WITH (FORCE)");
    }

    @Test
    void aCallerWithoutAClientCertificate_isRefusedByTheHomeReadServer_inTheHandshake() throws Exception {
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (java.io.InputStream in = Files.newInputStream(certificate)) {
            trust.setCertificateEntry("regions", java.security.cert.CertificateFactory.getInstance("X.509")
                                                                                    .generateCertificate(in));
        }
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        java.net.http.HttpClient noCertificate = java.net.http.HttpClient.newBuilder().sslContext(ssl).build();
        java.net.URI home = us.getBean(HomeReadServing.class).uri();

        assertThatThrownBy(() -> noCertificate.send(java.net.http.HttpRequest.newBuilder(home.resolve("/")).build(),
                                                    java.net.http.HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
    }

    @Test
    void aClaimAndARead_crossBetweenRegionsOverTls() throws Exception {
        assertThat(eu.getBean(HomeReadServing.class).uri().getScheme()).isEqualTo("https");

        HttpResponse<String> first = TwoRegionsTest.deposit(eu, "70", "k-tls", 5);
        HttpResponse<String> replay = TwoRegionsTest.deposit(eu, "70", "k-tls", 5);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(TwoRegionsTest.query(usDb, "SELECT user_id FROM unitas_idempotency WHERE idem_key = 'k-tls'"))
                .isEqualTo("70");

        TwoRegionsTest.execute(usDb, "INSERT INTO wallet (user_id, balance, version) VALUES ('77', 42, 3)");
        HttpResponse<String> read = TwoRegionsTest.get(eu, "/wallets/77");
        assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
        assertThat(read.body()).contains("\"balance\":42", "\"from\":\"HOME\"");
    }
}
