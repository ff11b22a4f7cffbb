package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.unitas.core.Region;

/**
 * TLS to upstreams against a real HTTPS backend with a certificate made by openssl: HTTP/1.1 and HTTP/2 (ALPN) when
 * the certificate chains to the configured CA and names the server; 502 naming the reason when it does not.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsEndToEndTest {

    Path dir;
    Backend secure;
    Gateway http1;
    Gateway h2;
    Gateway untrusted;
    Gateway misnamed;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("unitas-tls-test-");
        TestCertificate cert = TestCertificate.make(dir, "backend");
        TestCertificate stranger = TestCertificate.make(dir, "stranger");
        secure = new Backend("secure", cert);
        http1 = gateway(GatewayConfig.Protocol.HTTP1, new GatewayConfig.Tls(cert.cert(), null)); // checks 127.0.0.1
        h2 = gateway(GatewayConfig.Protocol.H2, new GatewayConfig.Tls(cert.cert(), "localhost"));
        untrusted = gateway(GatewayConfig.Protocol.HTTP1, new GatewayConfig.Tls(stranger.cert(), null));
        misnamed = gateway(GatewayConfig.Protocol.HTTP1, new GatewayConfig.Tls(cert.cert(), "elsewhere.example"));
    }

    private Gateway gateway(GatewayConfig.Protocol protocol, GatewayConfig.Tls tls) throws Exception {
        return GatewayServer.start(ProtocolEndToEndTest.config(Map.of(Region.of("cn"), new GatewayConfig.Upstream(
                                           List.of(secure.endpoint()), Map.of(), "", protocol, tls)),
                                                               Duration.ofSeconds(5), 1000),
                                   new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    @AfterAll
    void stop() throws Exception {
        for (Gateway g : List.of(http1, h2, untrusted, misnamed)) {
            g.close();
        }
        secure.close();
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
    void aCertificateForAnotherNameIsA502() throws Exception {
        HttpResponse<String> res = post(misnamed);

        assertThat(res.statusCode()).isEqualTo(502);
        assertThat(res.body()).contains("upstream-failed").contains("elsewhere.example");
    }
}
