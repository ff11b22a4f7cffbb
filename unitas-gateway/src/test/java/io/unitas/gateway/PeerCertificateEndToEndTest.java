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
import org.junit.jupiter.api.io.TempDir;

import io.unitas.core.Region;
import io.unitas.testkit.Ports;

/**
 * Peers named by certificate: cn's gateway serves TLS asking for client certificates from one CA, and trusts the
 * stamps of a peer named {@code dns:gw.eu.test}, by no address (everyone here is 127.0.0.1). eu's gateway reaches
 * it over h2 presenting that certificate, and its stamps are followed (the backend sees origin eu, two hops); the
 * same gateway without its certificate, one with a certificate of the peer's very names from another CA, and a
 * client presenting none, have their stamps stripped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PeerCertificateEndToEndTest {

    PeerCertificates certs;
    Backend cnMain;
    Backend euMain;
    Gateway cn;
    Gateway euWithCertificate;
    Gateway euWithout;

    @BeforeAll
    void start(@TempDir Path dir) {
        certs = PeerCertificates.make(dir);
        cnMain = new Backend("cn-main");
        euMain = new Backend("eu-main");
        GatewayConfig.Routing byCertificate = new GatewayConfig.Routing(Duration.ofSeconds(5),
                GatewayEndToEndTest.ROUTING.onReadOnly(), Map.of(), List.of("dns:" + PeerCertificates.PEER_DNS));
        cn = GatewayServer.start(GatewayEndToEndTest.config("cn", Ports.free(),
                new GatewayConfig.Certificate(certs.cert("server"), certs.key("server"), certs.ca()), Map.of(
                        Region.of("cn"), GatewayEndToEndTest.http1("", cnMain.endpoint()),
                        Region.of("eu"), GatewayEndToEndTest.http1("", euMain.endpoint())))
                                                         .withRouting(byCertificate),
                new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
        euWithCertificate = eu(new GatewayConfig.Tls(certs.ca(), null, certs.cert("peer"), certs.key("peer")));
        euWithout = eu(new GatewayConfig.Tls(certs.ca(), null));
    }

    /** eu's gateway, which reaches cn's over h2 and TLS with {@code tls}, and trusts nobody's stamps itself. */
    private Gateway eu(GatewayConfig.Tls tls) {
        return GatewayServer.start(GatewayEndToEndTest.config("eu", Ports.free(), Map.of(
                Region.of("eu"), GatewayEndToEndTest.http1("", euMain.endpoint()),
                Region.of("cn"), new GatewayConfig.Upstream(List.of("localhost:" + cn.port()), Map.of(),
                                                            "", GatewayConfig.Protocol.H2, tls)))
                                                      .withRouting(GatewayConfig.Routing.DEFAULTS),
                new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    @AfterAll
    void stop() {
        for (Gateway g : new Gateway[] {euWithCertificate, euWithout, cn}) {
            if (g != null) {
                g.close();
            }
        }
        if (cnMain != null) {
            cnMain.close();
            euMain.close();
        }
    }

    @Test
    void aPeerPresentingItsCertificate_hasItsStampsFollowed() throws Exception {
        HttpResponse<String> relayed = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + euWithCertificate.port() + "/a"))
                           .header("x-user-id", "100").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(relayed.statusCode()).isEqualTo(200);
        assertThat(relayed.body()).startsWith("backend=cn-main").contains("region=cn origin=eu hops=2");
    }

    @Test
    void thePeerWithoutItsCertificate_hasItsStampsStripped() throws Exception {
        HttpResponse<String> relayed = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + euWithout.port() + "/a"))
                           .header("x-user-id", "100").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(relayed.statusCode()).isEqualTo(200);
        assertThat(relayed.body()).startsWith("backend=cn-main").contains("region=cn origin=cn hops=1");
    }

    @Test
    void aClientWithoutACertificate_isServed_andItsStampIsStripped() throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(trustingCa()).build();
        HttpResponse<String> stamped = client.send(
                HttpRequest.newBuilder(URI.create("https://localhost:" + cn.port() + "/a"))
                           .header("x-user-id", "7000").header("x-unitas-region", "cn")
                           .header("x-unitas-hops", "1").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(stamped.statusCode()).isEqualTo(200);
        assertThat(stamped.body()).as("routed by its key, to eu").startsWith("backend=eu-main");
    }

    @Test
    void aCertificateWithThePeersNamesFromAnotherCa_earnsNoTrust() throws Exception {
        Gateway impostor = eu(new GatewayConfig.Tls(certs.ca(), null, certs.cert("stranger"), certs.key("stranger")));
        try {
            HttpResponse<String> res = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + impostor.port() + "/a"))
                               .header("x-user-id", "100").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).isEqualTo(200);
            assertThat(res.body()).startsWith("backend=cn-main").contains("region=cn origin=cn hops=1");
        } finally {
            impostor.close();
        }
    }

    private SSLContext trustingCa() throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(certs.ca())) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}
