package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.unitas.core.Region;
import io.unitas.testkit.Ports;

/**
 * TLS against real servers with a certificate made by openssl: to an HTTPS backend over HTTP/1.1 and HTTP/2 (ALPN)
 * when the certificate chains to the configured CA and names the server, 502 naming the reason when it does not;
 * and a gateway serving TLS, reached by a client over h2 and by another region's gateway.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsEndToEndTest {

    Path dir;
    TestCertificate cert;
    Backend secure;
    Backend plain;
    Gateway euOverTls;
    Gateway cnToEu;
    Gateway http1;
    Gateway h2;
    Gateway untrusted;
    Gateway misnamed;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("unitas-tls-test-");
        cert = TestCertificate.make(dir, "backend");
        TestCertificate stranger = TestCertificate.make(dir, "stranger");
        secure = new Backend("secure", cert);
        http1 = gateway(GatewayConfig.Protocol.HTTP1, new GatewayConfig.Tls(cert.cert(), null)); // checks 127.0.0.1
        h2 = gateway(GatewayConfig.Protocol.H2, new GatewayConfig.Tls(cert.cert(), "localhost"));
        untrusted = gateway(GatewayConfig.Protocol.HTTP1, new GatewayConfig.Tls(stranger.cert(), null));
        misnamed = gateway(GatewayConfig.Protocol.HTTP1, new GatewayConfig.Tls(cert.cert(), "elsewhere.example"));
        // another region's gateway serving TLS with the certificate, and one that reaches it over h2 and TLS
        plain = new Backend("eu-plain");
        euOverTls = GatewayServer.start(
                GatewayEndToEndTest.config("eu", Ports.free(), new GatewayConfig.Certificate(cert.cert(), cert.key()),
                                           Map.of(Region.of("eu"), GatewayEndToEndTest.http1("", plain.endpoint()))),
                new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
        cnToEu = GatewayServer.start(GatewayEndToEndTest.config("cn", Ports.free(), Map.of(
                Region.of("cn"), GatewayEndToEndTest.http1("", plain.endpoint()),
                Region.of("eu"), new GatewayConfig.Upstream(List.of("localhost:" + euOverTls.port()), Map.of(),
                                                            Proxy.HEALTH_PATH, GatewayConfig.Protocol.H2,
                                                            new GatewayConfig.Tls(cert.cert(), null)))),
                                     new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    private Gateway gateway(GatewayConfig.Protocol protocol, GatewayConfig.Tls tls) throws Exception {
        return GatewayServer.start(ProtocolEndToEndTest.config(Map.of(Region.of("cn"), new GatewayConfig.Upstream(
                                           List.of(secure.endpoint()), Map.of(), "", protocol, tls)),
                                                               Duration.ofSeconds(5), 1000),
                                   new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    @AfterAll
    void stop() throws Exception {
        for (Gateway g : List.of(http1, h2, untrusted, misnamed, cnToEu, euOverTls)) {
            g.close();
        }
        secure.close();
        plain.close();
        try (var files = Files.list(dir)) {
            files.forEach(f -> f.toFile().delete());
        }
        Files.delete(dir);
    }

    private static HttpResponse<String> post(Gateway g) throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.port() + "/orders"))
                           .header("x-user-id", "100").POST(HttpRequest.BodyPublishers.ofString("{\"n\":1}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void http1OverTlsReachesAServerWhoseCertificateChainsToTheConfiguredCa() throws Exception {
        HttpResponse<String> res = post(http1);

        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.body()).startsWith("backend=secure method=POST").endsWith("protocol=h1 body=7");
    }

    @Test
    void h2IsAgreedByAlpn() throws Exception {
        for (int i = 0; i < 3; i++) { // streams of one connection
            HttpResponse<String> res = post(h2);

            assertThat(res.statusCode()).isEqualTo(200);
            assertThat(res.body()).startsWith("backend=secure method=POST").endsWith("protocol=h2 body=7");
        }
    }

    @Test
    void aCertificateFromAnUntrustedCaIsA502NamingTheReason() throws Exception {
        HttpResponse<String> res = post(untrusted);

        assertThat(res.statusCode()).isEqualTo(502);
        assertThat(res.body()).contains("upstream-failed").contains("region cn")
                              .contains("does not chain with any of the trust anchors");
    }

    @Test
    void aGatewayServesTlsAndAnotherRegionsGatewayReachesItOverH2() throws Exception {
        HttpClient h2Client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(trusting(cert))
                                        .build();
        HttpResponse<String> direct = h2Client.send(
                HttpRequest.newBuilder(URI.create("https://localhost:" + euOverTls.port() + "/a"))
                           .header("x-user-id", "7000").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(direct.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(direct.statusCode()).isEqualTo(200);
        assertThat(direct.body()).startsWith("backend=eu-plain");

        HttpResponse<String> relayed = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cnToEu.port() + "/a"))
                           .header("x-user-id", "7000").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(relayed.statusCode()).isEqualTo(200);
        assertThat(relayed.headers().firstValue("x-unitas-served-by")).hasValue("eu");
        assertThat(relayed.body()).startsWith("backend=eu-plain").contains("region=eu origin=cn hops=2");
    }

    /** A client context that trusts {@code certificate} alone. */
    private static SSLContext trusting(TestCertificate certificate) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(certificate.cert())) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    @Test
    void aCertificateForAnotherNameIsA502() throws Exception {
        HttpResponse<String> res = post(misnamed);

        assertThat(res.statusCode()).isEqualTo(502);
        assertThat(res.body()).contains("upstream-failed").contains("elsewhere.example");
    }
}
