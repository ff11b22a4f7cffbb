package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.Await;

/** The server following a real control plane's watch, as the gateway does: a health report changes the answers. */
class DnsControlPlaneTest {

    private static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);
    private static final ControlToken DNS = ControlToken.generate("dns", Role.VIEWER);
    private static final String TOPOLOGY = "{\"regions\":[{\"id\":\"cn\"},{\"id\":\"eu\"},{\"id\":\"us\"}]}";

    @TempDir
    Path dir;
    private ControlServer control;
    private DnsServer dns;
    private long sequence;

    @AfterEach
    void stop() {
        if (dns != null) {
            dns.close();
        }
        if (control != null) {
            control.close();
        }
    }

    @Test
    void aHealthReportToTheControlPlaneChangesTheAnswer_andTheLastGoodStateIsKeptOnDisk() throws Exception {
        Files.writeString(dir.resolve("tokens"), ADMIN.fileLine() + "\n" + DNS.fileLine() + "\n");
        control = ControlServer.builder().port(0).dataDir(dir.resolve("control-data")).tokens(dir.resolve("tokens"))
                               .healthFreshness(Duration.ofHours(1), Duration.ofHours(1)).start();
        RawClient admin = RawClient.of(URI.create("http://127.0.0.1:" + control.port()), ADMIN.secret());
        ok(admin.put("/api/v1/topology", TOPOLOGY, admin.get("/api/v1/state").revision()));
        // no unit rules: DNS routes regions, not users
        for (String region : new String[] {"cn", "eu", "us"}) {
            report(admin, region, true);
        }
        SecretFiles.writePrivate(dir.resolve("token"), DNS.secret()); // a secret: its owner's only
        String yaml = ZoneFiles.DNS_YAML.replace(
                "static: {topology: topology.yaml, health: health.yaml, reload_interval: 100ms}",
                "control_plane: {url: 'http://127.0.0.1:" + control.port() + "', token_file: token,"
                + " state_file: state/last-good.json}");
        dns = DnsServer.start(DnsConfig.read(ZoneFiles.write(dir, yaml)));
        RawDns raw = new RawDns(dns.port());
        byte[] cnClient = RawDns.query(1, "www.shop.example.", 1, 1232, "10.1.0.0", 16);
        Await.until("cn's clients answered from cn", Duration.ofSeconds(10),
                    () -> addresses(raw.udp(cnClient)).equals("10.0.1.1 10.0.1.2"));

        report(admin, "cn", false);
        Await.until("cn's clients answered from eu", Duration.ofSeconds(10),
                    () -> addresses(raw.udp(cnClient)).equals("10.0.2.1"));
        assertThat(dir.resolve("state/last-good.json")).exists();
    }

    private void report(RawClient admin, String region, boolean healthy) {
        ok(admin.send("PUT", "/api/v1/health/" + region, "{\"region\":\"" + region + "\",\"sequence\":"
                + ++sequence + ",\"observed_at\":\"" + Instant.now() + "\",\"healthy\":" + healthy
                + ",\"writable\":" + healthy + ",\"replication_lag_ms\":0,\"score\":" + (healthy ? 1 : 0)
                + ",\"reasons\":[],\"checks\":{}}", Map.of()));
    }

    private static void ok(ControlResponse res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
    }

    private static String addresses(RawDns.Answer a) {
        return a.answers().stream().map(RawDns.Rr::address).sorted().collect(Collectors.joining(" "));
    }
}
