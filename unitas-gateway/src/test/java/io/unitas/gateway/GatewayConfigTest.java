package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.RequestHeaders;

import io.unitas.config.ConfigException;
import io.unitas.control.client.state.StateSource;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.fence.Writes;
import io.unitas.testkit.Ports;

class GatewayConfigTest {

    @TempDir
    Path dir;

    GatewayConfig read(String yaml) throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, yaml);
        return GatewayConfig.read(file);
    }

    @Test
    void aStaticConfigReadsWithDefaultsForWhatItLeavesOut() throws Exception {
        GatewayConfig c = read("""
                region: cn
                listen: 127.0.0.1:8080
                upstreams:
                  cn: {endpoints: [10.0.0.1:8080, 10.0.0.2:8080], versions: {"1.1": [10.0.0.3:8080]}}
                  eu: {endpoints: [gw.eu.example:8080], health_check: /unitas/healthz}
                  us: {endpoints: [10.2.0.1:9090], protocol: h2c, health_check: grpc}
                  eu-tls: {endpoints: [gw.eu.example:8443], protocol: h2, tls: {server_name: gw.eu.example}}
                static: {topology: topology.yaml, rules: rules.yaml, health: health.yaml}
                access_log: off
                """);
        assertThat(c.region()).isEqualTo(Region.of("cn"));
        assertThat(c.listen().getPort()).isEqualTo(8080);
        assertThat(c.upstreams().get(Region.of("cn")).versions()).containsKey("1.1");
        assertThat(c.upstreams().get(Region.of("eu")).healthCheck()).isEqualTo("/unitas/healthz");
        assertThat(c.upstreams().get(Region.of("eu")).protocol()).isEqualTo(GatewayConfig.Protocol.HTTP1);
        assertThat(c.upstreams().get(Region.of("us")).protocol()).isEqualTo(GatewayConfig.Protocol.H2C);
        assertThat(c.upstreams().get(Region.of("us")).healthCheck()).isEqualTo(GatewayConfig.Upstream.GRPC_HEALTH);
        assertThat(c.upstreams().get(Region.of("eu-tls")).tls()).isEqualTo(new GatewayConfig.Tls(null, "gw.eu.example"));
        assertThat(c.upstreams().get(Region.of("eu")).tls()).isNull();
        assertThat(c.source()).isEqualTo(new StateSource.StaticFiles(
                dir.resolve("topology.yaml"), dir.resolve("rules.yaml"), dir.resolve("health.yaml"), null,
                Duration.ofSeconds(1)));
        assertThat(c.headers()).isEqualTo(GatewayConfig.Headers.DEFAULTS);
        assertThat(c.hopLimit()).isEqualTo(3);
        assertThat(c.writes()).isEqualTo(Writes.DEFAULT);
        assertThat(c.resilience()).isEqualTo(GatewayConfig.Resilience.DEFAULTS);
        assertThat(c.accessLog()).isEqualTo("off");
        assertThat(c.workers()).isZero();
        assertThat(c.transport()).isEqualTo(GatewayConfig.TransportKind.AUTO);
        assertThat(c.shortTimeSlices()).isTrue();
        assertThat(c.routing()).isEqualTo(GatewayConfig.Routing.DEFAULTS);
        assertThat(c.limits()).isEqualTo(new GatewayConfig.Limits(10_000, Duration.ofSeconds(10),
                                                                  Duration.ofSeconds(60)));
    }

    @Test
    void routingKnobsAreRead() throws Exception {
        GatewayConfig c = read("""
                region: cn
                listen: 127.0.0.1:8080
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                hold_down: 0s
                on_read_only: failover
                on_read_only_units: {u-sh: fence}
                trusted_peers: [10.1.0.0/16, 10.2.3.4, "::1/128"]
                """);
        assertThat(c.routing()).isEqualTo(new GatewayConfig.Routing(
                Duration.ZERO, ReadOnlyPolicy.FAILOVER, Map.of("u-sh", ReadOnlyPolicy.FENCE),
                List.of("10.1.0.0/16", "10.2.3.4", "::1/128")));
        assertThat(c.routing().onReadOnly("u-sh")).isEqualTo(ReadOnlyPolicy.FENCE);
        assertThat(c.routing().onReadOnly("u-bj")).isEqualTo(ReadOnlyPolicy.FAILOVER);
        TrustedPeers peers = TrustedPeers.of(c.routing().trustedPeers());
        assertThat(peers.trusts(new InetSocketAddress("10.1.200.7", 1))).isTrue();
        assertThat(peers.trusts(new InetSocketAddress("10.2.3.4", 1))).isTrue();
        assertThat(peers.trusts(new InetSocketAddress("10.2.3.5", 1))).isFalse();
        assertThat(peers.trusts(new InetSocketAddress("10.3.0.1", 1))).isFalse();
        assertThat(peers.trusts(new InetSocketAddress("::1", 1))).isTrue();
        assertThat(TrustedPeers.none().trusts(new InetSocketAddress("127.0.0.1", 1))).isFalse();
    }

    /**
     * Seed 004's {@code n-d-region} in place of {@code x-unitas-region}, through a running gateway: the gateway stamps
     * its upstream requests with it, follows it from a trusted peer, and removes it from anyone else's request.
     */
    @Test
    void seed004sRegionHeader_isTheStampARunningGatewaySetsFollowsAndStrips() throws Exception {
        try (Backend cnBackend = new Backend("cn-main"); Backend euBackend = new Backend("eu-gw")) {
            GatewayConfig c = read("""
                    region: cn
                    listen: 127.0.0.1:0
                    upstreams: {cn: {endpoints: ['%s']}, eu: {endpoints: ['%s']}}
                    static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                    headers: {region: n-d-region}
                    trusted_peers: [127.0.0.1/32]
                    access_log: off
                    """.formatted(cnBackend.endpoint(), euBackend.endpoint()));
            FixedFeed feed = new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP);
            try (Gateway gw = GatewayServer.start(c.withListen(new InetSocketAddress("127.0.0.1", Ports.free())),
                                                  feed)) {
                WebClient peer = WebClient.of("http://127.0.0.1:" + gw.port());
                String routed = peer.execute(RequestHeaders.of(HttpMethod.GET, "/a", "x-user-id", "7000"))
                                    .aggregate().join().contentUtf8();
                assertThat(routed).startsWith("backend=eu-gw").contains("region=null").contains("n-d-region=eu");

                String followed = peer.execute(RequestHeaders.of(HttpMethod.GET, "/a", "x-user-id", "1500",
                                                                 "n-d-region", "eu"))
                                      .aggregate().join().contentUtf8();
                assertThat(followed).startsWith("backend=eu-gw").contains("unit=u-cn").contains("n-d-region=eu");

                String[] stripped = GatewayEndToEndTest.raw("127.0.0.2", gw.port(), "GET", "/a", "x-user-id", "1500",
                                                            "n-d-region", "eu");
                assertThat(stripped[1]).startsWith("backend=cn-main").contains("n-d-region=cn");
            }
        }
    }

    @Test
    void headerNamesAreConfigurableSoSeed004sRegionHeaderWorks() throws Exception {
        GatewayConfig c = read("""
                region: cn
                listen: 127.0.0.1:8080
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                control_plane: {url: http://127.0.0.1:7000, state_file: state.json}
                headers: {region: n-d-region}
                write_methods: [post, delete]
                read_paths: [/acme.orders.v1.Orders/Get*, /graphql/query]
                workers: 2
                transport: epoll
                time_slice: kernel
                hop_limit: 5
                retries: {max_attempts: 3}
                outlier: {failure_rate: 0.25, minimum_requests: 20, ejection_time: 30s}
                timeouts: {idle: 30s}
                limits: {max_connections: 500, header_read_timeout: 5s}
                """);
        assertThat(c.limits()).isEqualTo(new GatewayConfig.Limits(500, Duration.ofSeconds(5),
                                                                  GatewayConfig.Limits.DEFAULTS.idleTimeout()));
        assertThat(c.workers()).isEqualTo(2);
        assertThat(c.transport()).isEqualTo(GatewayConfig.TransportKind.EPOLL);
        assertThat(c.shortTimeSlices()).isFalse();
        assertThat(c.hopLimit()).isEqualTo(5);
        assertThat(c.resilience().maxAttempts()).isEqualTo(3);
        assertThat(c.resilience().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.resilience().responseTimeout()).isEqualTo(GatewayConfig.Resilience.DEFAULTS.responseTimeout());
        assertThat(c.resilience().ejectionFailureRate()).isEqualTo(0.25);
        assertThat(c.resilience().ejectionMinRequests()).isEqualTo(20);
        assertThat(c.headers().region()).isEqualTo("n-d-region");
        assertThat(c.headers().unit()).isEqualTo("x-unitas-unit");
        assertThat(c.writes().methods()).containsExactlyInAnyOrder("POST", "DELETE");
        assertThat(c.writes().readPaths()).containsExactly("/acme.orders.v1.Orders/Get*", "/graphql/query");
        assertThat(c.source()).isEqualTo(new StateSource.ControlPlane("http://127.0.0.1:7000", "", null,
                                                                        dir.resolve("state.json"), null, false));
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
            "listen: 127.0.0.1:8080                          | gateway.yaml:1: region: missing (expected: a region id such as cn)",
            "region: CN                                      | gateway.yaml:1: region: 'CN' (expected: lowercase letters, digits, '-' or '_', at most 63)",
            "region: cn\\nlisten: localhost                  | gateway.yaml:2: listen: 'localhost' (expected: host:port, e.g. 127.0.0.1:8080)",
            "region: cn\\nlisten: 1.2.3.4:1\\ncolour: red    | gateway.yaml:3: colour: unknown key",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {eu: {endpoints: [x]}} | gateway.yaml:3: upstreams.eu.endpoints[0]: 'x' (expected: host:port)",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {eu: {endpoints: [a:1]}} | gateway.yaml:3: upstreams: no endpoints for the gateway's own region cn",
            "region: cn\\nlisten: 1.2.3.4:1\\ntimeouts: {response: soon} | gateway.yaml:3: timeouts.response: 'soon' (expected: a duration like 500ms, 5s, 2m or 1h)",
            "region: cn\\nlisten: 1.2.3.4:1\\ntimeouts: {connect: 0s} | gateway.yaml:3: timeouts.connect: '0s' (expected: a duration above 0, like 500ms, 5s, 2m or 1h)",
            "region: cn\\nlisten: 1.2.3.4:1\\nhop_limit: 0   | gateway.yaml:3: hop_limit: 0 (expected: a whole number >= 1)",
            "region: cn\\nlisten: 1.2.3.4:1\\nlimits: {max_connections: 0} | gateway.yaml:3: limits.max_connections: 0 (expected: a whole number >= 1)",
            "region: cn\\nlisten: 1.2.3.4:1\\nlimits: {idle_timeout: 0s} | gateway.yaml:3: limits.idle_timeout: '0s' (expected: a duration above 0, like 500ms, 5s, 2m or 1h)",
            "region: cn\\nlisten: 1.2.3.4:1\\nlimits: {header_timeout: 5s} | gateway.yaml:3: limits.header_timeout: unknown key",
            "region: cn\\nlisten: 1.2.3.4:1\\nworkers: many | gateway.yaml:3: workers: \"many\" (expected: auto or a whole number >= 1)",
            "region: cn\\nlisten: 1.2.3.4:1\\ntransport: kqueue | gateway.yaml:3: transport: \"kqueue\" (expected: auto, io_uring, epoll or nio)",
            "region: cn\\nlisten: 1.2.3.4:1\\ntime_slice: 100us | gateway.yaml:3: time_slice: \"100us\" (expected: short or kernel)",
            "region: cn\\nlisten: 1.2.3.4:1\\nread_paths: [/a, b*] | gateway.yaml:3: read_paths[1]: 'b*' (expected: a path starting with /, with * only at its end)",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1], protocol: h3}} | gateway.yaml:3: upstreams.cn.protocol: 'h3' (expected: http/1.1, h2c or h2)",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1], protocol: h2}} | gateway.yaml:3: upstreams.cn.protocol: h2 needs tls (h2c is HTTP/2 without it)",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1], protocol: h2c, tls: true}} | gateway.yaml:3: upstreams.cn.protocol: h2c is HTTP/2 without TLS (expected: h2 with tls)",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1], tls: {ca: nope.pem}}} | gateway.yaml:3: upstreams.cn.tls.ca: '",
            "region: cn\\nlisten: 1.2.3.4:1\\ntrusted_peers: [10.0.0.0/33] | gateway.yaml:3: trusted_peers[0]: '10.0.0.0/33' (expected: an IP address or CIDR such as 10.1.0.0/16 or ::1/128, or a certificate's name: dns:NAME, uri:URI or cn:NAME)",
            "region: cn\\nlisten: 1.2.3.4:1\\ntrusted_peers: ['dns:gw.eu.example'] | gateway.yaml:3: trusted_peers[0]: 'dns:gw.eu.example' names a peer by its certificate, which the listener does not ask for (expected: tls.client_ca, the CA of the peers' certificates)",
            "region: cn\\nlisten: 1.2.3.4:1\\ntrusted_peers: ['dns:'] | gateway.yaml:3: trusted_peers[0]: 'dns:' (expected: dns: and a name without spaces around it, such as dns:gw.eu.example)",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1], tls: {cert: a.crt}}} | gateway.yaml:3: upstreams.cn.tls: expected both cert and key (PEM files), or neither",
            "region: cn\\nlisten: 1.2.3.4:1\\ntrusted_peers: [gw.eu.example] | gateway.yaml:3: trusted_peers[0]: 'gw.eu.example' (expected: an IP address or CIDR",
            "region: cn\\nlisten: 1.2.3.4:1\\non_read_only: retry | gateway.yaml:3: on_read_only: 'retry' (expected: fence or failover)",
            "region: cn\\nlisten: 1.2.3.4:1\\non_read_only_units: {u-sh: maybe} | gateway.yaml:3: on_read_only_units.u-sh: 'maybe' (expected: fence or failover)",
            "region: cn\\nlisten: 1.2.3.4:1\\nhold_down: soon | gateway.yaml:3: hold_down: 'soon' (expected: a duration like 500ms",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1]}}\\ncontrol_plane: {url: 'http://control.internal:7070', state_file: s.json} | gateway.yaml:4: control_plane.url: 'http://control.internal:7070' is cleartext to another host: the bearer token would cross the network readable (expected: https://, or allow_insecure: true to accept that)",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1]}}\\ncontrol_plane: {url: 'https://c:7070', ca: nope.pem, state_file: s.json} | gateway.yaml:4: control_plane.ca: ",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1]}}\\ncontrol_plane: {url: 'https://c:7070', token_file: nope.token, state_file: s.json} | gateway.yaml:4: control_plane.token_file: cannot read ",
            "region: cn\\nlisten: 1.2.3.4:1\\nupstreams: {cn: {endpoints: [a:1], health_check: grpc}} | gateway.yaml:3: upstreams.cn.health_check: 'grpc' needs protocol: h2c or h2 (gRPC runs over HTTP/2)",
            "region: cn\\nlisten: 1.2.3.4:1\\nadmin: {} | gateway.yaml:3: admin: expected listen (host:port), token_file, or both",
            "region: cn\\nlisten: 1.2.3.4:1\\nadmin: {listen: 1.2.3.4:1} | gateway.yaml:3: admin.listen: port 1 is the traffic port's (expected: a port of its own)",
            "region: cn\\nlisten: 1.2.3.4:1\\nadmin: {listen: nine} | gateway.yaml:3: admin.listen: 'nine' (expected: host:port, e.g. 127.0.0.1:9901)",
            "region: cn\\nlisten: 1.2.3.4:1\\nadmin: {token_file: nope.token} | gateway.yaml:3: admin.token_file: cannot read ",
    })
    void everyMistakeIsNamedWithItsLine(String yaml, String expected) throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, yaml.replace("\\n", "\n"));
        assertThatThrownBy(() -> GatewayConfig.read(file))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems())
                        .anySatisfy(p -> assertThat(p).startsWith(dir.resolve(expected.substring(0, 12)) + "")
                                                      .contains(expected.substring(12))));
    }

    @Test
    void durationsAreWrittenAsInEveryOtherUnitasFile_hoursIncluded() throws Exception {
        GatewayConfig c = read("""
                region: cn
                listen: 127.0.0.1:8080
                timeouts: {idle: 1h}
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                """);
        assertThat(c.resilience().idleTimeout()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void cleartextToARemoteControlPlane_isAllowedOnlyWhenSaidSo() throws Exception {
        GatewayConfig c = read("""
                region: cn
                listen: 127.0.0.1:0
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                control_plane: {url: 'http://control.internal:7070', allow_insecure: true, state_file: s.json}
                """);
        assertThat(((StateSource.ControlPlane) c.source()).allowInsecure()).isTrue();
    }

    @Test
    void theListenersCertificateIsReadAndCheckedAtOnce() throws Exception {
        TestCertificate cert = TestCertificate.make(dir, "gw");
        GatewayConfig c = read("""
                region: cn
                listen: 127.0.0.1:8443
                tls: {cert: gw.crt, key: gw.key}
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                """);
        assertThat(c.tls()).isEqualTo(new GatewayConfig.Certificate(cert.cert(), cert.key()));

        // the two swapped: the certificate taken for the key must pass the key's mode check to be read as PEM
        Files.setPosixFilePermissions(cert.cert(), PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> read("""
                region: cn
                listen: 127.0.0.1:8443
                tls: {cert: gw.key, key: gw.crt}
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                """)).isInstanceOf(ConfigException.class)
                     .hasMessageContaining("gateway.yaml:3: tls: ")
                     .hasMessageContaining("are not a PEM certificate chain and its key");
    }

    @Test
    void aTlsKeyOthersMayRead_isRefused_namingItsKeyAndTheChmodThatFixesIt() throws Exception {
        TestCertificate cert = TestCertificate.make(dir, "gw");
        Files.setPosixFilePermissions(cert.key(), PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> read("""
                region: cn
                listen: 127.0.0.1:8443
                tls: {cert: gw.crt, key: gw.key}
                upstreams: {cn: {endpoints: [127.0.0.1:9000], tls: {cert: gw.crt, key: gw.key}}}
                static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                """)).isInstanceOf(ConfigException.class)
                     .hasMessageContaining("tls.key: " + cert.key() + ": the listener's TLS key has mode rw-r--r--")
                     .hasMessageContaining("upstreams.cn.tls.key: " + cert.key() + ": the upstream's TLS key has mode")
                     .hasMessageContaining("chmod 600 " + cert.key());
    }

    @Test
    void aTlsKeyThatIsALink_isRefused() throws Exception {
        TestCertificate cert = TestCertificate.make(dir, "gw");
        Files.createSymbolicLink(dir.resolve("planted.key"), cert.key());

        assertThatThrownBy(() -> read("""
                region: cn
                listen: 127.0.0.1:8443
                tls: {cert: gw.crt, key: planted.key}
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                """)).isInstanceOf(ConfigException.class)
                     .hasMessageContaining("tls.key: " + dir.resolve("planted.key")
                                           + ": the listener's TLS key is a symbolic link");
    }

    @Test
    void bothStateSourcesAtOnceIsAMistake() {
        assertThatThrownBy(() -> read("""
                region: cn
                listen: 127.0.0.1:8080
                upstreams: {cn: {endpoints: [127.0.0.1:9000]}}
                control_plane: {url: http://127.0.0.1:7000, state_file: s.json}
                static: {topology: t.yaml, rules: r.yaml, health: h.yaml}
                """)).hasMessageContaining("expected exactly one of control_plane and static");
    }
}
