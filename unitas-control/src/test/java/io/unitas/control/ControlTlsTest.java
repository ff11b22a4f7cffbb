package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control plane over HTTPS, so that bearer tokens never cross a network in cleartext. */
class ControlTlsTest {

    @TempDir
    Path dir;

    @Test
    void withACertificateAndKey_theApiIsServedOverHttpsOnly() throws Exception {
        Path cert = dir.resolve("control.crt");
        Path key = dir.resolve("control.key");
        openssl(cert, key);
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir.resolve("data"))
                                                 .tokens(Fixtures.tokensFile(dir)).tls(cert, key).start()) {
            assertThat(server.uri().getScheme()).isEqualTo("https");
            HttpClient trusting = HttpClient.newBuilder().sslContext(trusting(cert))
                                            .connectTimeout(Duration.ofSeconds(10)).build();

            HttpResponse<String> res = trusting.send(HttpRequest.newBuilder(server.uri().resolve("/api/v1/whoami"))
                    .header("Authorization", "Bearer " + Fixtures.VIEWER.secret()).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(res.statusCode()).isEqualTo(200);
            assertThat(res.body()).contains("\"name\":\"watcher\"");
            URI plain = URI.create("http://127.0.0.1:" + server.port() + "/api/v1/whoami");
            assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(plain)
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()))
                    .as("cleartext to the TLS port").isInstanceOf(java.io.IOException.class);
        }
    }

    @Test
    void listeningBeyondLoopbackInCleartext_isRefusedUnlessAllowed() {
        assertThatThrownBy(() -> ControlServer.builder().host("0.0.0.0").port(0).dataDir(dir.resolve("data"))
                                              .tokens(Fixtures.tokensFile(dir)).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("listen 0.0.0.0: not a loopback address, without TLS (expected: tls(cert, key), "
                            + "or allowPlaintext() behind a proxy that terminates TLS)");

        try (ControlServer server = ControlServer.builder().host("0.0.0.0").port(0).allowPlaintext(true)
                                                 .dataDir(dir.resolve("data")).tokens(Fixtures.tokensFile(dir))
                                                 .start()) {
            assertThat(server.uri().toString()).startsWith("http://127.0.0.1:");
        }
    }

    @Test
    void aKeyThatIsNoKey_isRefusedNamingTheFiles() throws Exception {
        Path cert = Files.writeString(dir.resolve("c.crt"), "not a certificate");
        Path key = Files.writeString(dir.resolve("c.key"), "not a key");
        Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

        assertThatThrownBy(() -> ControlServer.builder().port(0).dataDir(dir.resolve("data"))
                                              .tokens(Fixtures.tokensFile(dir)).tls(cert, key).start())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("tls: " + cert + ", " + key + ": ");
    }

    private static SSLContext trusting(Path cert) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(cert)) {
            store.setCertificateEntry("control", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** A self-signed certificate for localhost and 127.0.0.1, made by openssl. */
    private static void openssl(Path cert, Path key) throws Exception {
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                       "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                       "-keyout", key.toString(), "-out", cert.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as("openssl req: " + out).isTrue();
    }
}
