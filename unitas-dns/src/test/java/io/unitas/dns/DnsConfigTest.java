package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.config.ConfigException;
import io.unitas.control.client.state.StateSource;
import io.unitas.core.Region;

class DnsConfigTest {

    @TempDir
    Path dir;

    @Test
    void theIssuesZoneReads() throws Exception {
        DnsConfig c = DnsConfig.read(ZoneFiles.write(dir));
        assertThat(c.zone()).isEqualTo("shop.example.");
        assertThat(c.baseTtl()).isEqualTo(300);
        assertThat(c.minTtl()).isEqualTo(30);
        assertThat(c.holdDown()).isEqualTo(Duration.ZERO);
        assertThat(c.geo()).hasSize(3);
        assertThat(c.records().get("www.shop.example.").get(Region.of("cn")))
                .containsExactly(InetAddress.getByName("10.0.1.1"), InetAddress.getByName("10.0.1.2"));
        assertThat(c.services().get("_api._tcp.shop.example.").get(Region.of("cn")))
                .containsExactly(new DnsConfig.SrvTarget("gw1.cn.shop.example.", 8443, 60),
                                 new DnsConfig.SrvTarget("gw2.cn.shop.example.", 8443, 40));
        assertThat(c.nameservers()).containsExactly("ns1.shop.example.");
        assertThat(c.hostmaster()).isEqualTo("hostmaster.shop.example.");
        assertThat(c.source()).isEqualTo(new StateSource.StaticFiles(dir.resolve("topology.yaml"), null,
                                                                     dir.resolve("health.yaml"), null,
                                                                     Duration.ofMillis(100)));
    }

    @Test
    void theTtlFloorIsTheSeedsThirtySeconds_unlessGiven() {
        DnsConfig c = DnsConfig.read(ZoneFiles.write(dir, ZoneFiles.DNS_YAML.replace("ttl: {base: 300s, min: 30s}",
                                                                                      "ttl: {base: 120s}")));
        assertThat(c.baseTtl()).isEqualTo(120);
        assertThat(c.minTtl()).isEqualTo(30);
    }

    @Test
    void overlappingNetworksAreFine() {
        String yaml = ZoneFiles.DNS_YAML.replace("  - {cidr: 0.0.0.0/0,   region: us}",
                                                 "  - {cidr: 0.0.0.0/0,   region: us}\n"
                                                 + "  - {cidr: 10.1.2.0/24, region: eu}");
        assertThat(DnsConfig.read(ZoneFiles.write(dir, yaml)).geo()).hasSize(4);
    }

    @Test
    void everyMistakeIsNamedWithItsLine_allAtOnce() {
        String yaml = """
                zone: shop.example
                listen: 127.0.0.1:99999
                ttl: {base: 300s, min: 600s}
                geo:
                  - {cidr: 10.1.0.0/33, region: cn}
                  - {cidr: 10.2.0.0/16, region: eu}
                  - {cidr: 0.0.0.0/0,   region: us}
                records:
                  www: {cn: [10.0.1.1, not-an-ip], us: [10.0.3.1]}
                  www.other.example.: {cn: [10.0.1.1], eu: [10.0.2.1], us: [10.0.3.1]}
                services:
                  _api._tcp:
                    cn: [{target: gw1.cn, port: 8443, weight: 70000}]
                    eu: [{target: gw1.eu, port: 8443}]
                    us: [{target: gw1.us, port: 8443, weight: 1}]
                    mars: [{target: gw1.mars, port: 8443, weight: 1}]
                static: {topology: topology.yaml, health: health.yaml, reload: 1s}
                """;
        assertThatThrownBy(() -> DnsConfig.read(ZoneFiles.write(dir, yaml)))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(
                        e.problems().stream().map(p -> p.replace(dir + "/", ""))).containsExactlyInAnyOrder(
                        "dns.yaml:1: zone: 'shop.example' (expected: a domain name with its final dot, e.g."
                        + " shop.example.)",
                        "dns.yaml:2: listen: '127.0.0.1:99999' (expected: host:port, e.g. 127.0.0.1:5353)",
                        "dns.yaml:3: ttl.min: 600s (expected: at most ttl.base, 300s)",
                        "dns.yaml:17: static.reload: unknown key (expected one of: health, reload_interval,"
                        + " topology)",
                        "dns.yaml:5: geo[0].cidr: '10.1.0.0/33' (expected: a prefix from /0 to /32)",
                        "dns.yaml:9: records.www.cn[1]: 'not-an-ip' (expected: an IPv4 or IPv6 address)",
                        "dns.yaml:9: records.www: region eu missing (expected: an entry for every region: eu, us,"
                        + " cn)",
                        "dns.yaml:10: records.www.other.example.: 'www.other.example.' is outside the zone"
                        + " shop.example.",
                        "dns.yaml:13: services._api._tcp.cn[0].weight: 70000 (expected: a weight from 0 to 65535)",
                        "dns.yaml:16: services._api._tcp.mars: unknown region (expected one of: eu, us, cn)"));
    }

    @Test
    void aRegionOfTheTopologyMissingFromRecords_isAProblem() {
        String yaml = ZoneFiles.DNS_YAML.replace("www: {cn: [10.0.1.1, 10.0.1.2], eu: [10.0.2.1], us: ",
                                                 "www: {cn: [10.0.1.1, 10.0.1.2], us: ");
        assertThatThrownBy(() -> DnsConfig.read(ZoneFiles.write(dir, yaml)))
                .hasMessageContaining("records.www: region eu missing (expected: an entry for every region: cn, eu,"
                                      + " us)");
    }

    @Test
    void aGeoRegionNotInTheTopology_isAProblem() {
        String yaml = ZoneFiles.DNS_YAML.replace("  - {cidr: 10.2.0.0/16, region: eu}",
                                                 "  - {cidr: 10.2.0.0/16, region: eu}\n"
                                                 + "  - {cidr: 10.3.0.0/16, region: mars}");
        assertThatThrownBy(() -> DnsConfig.read(ZoneFiles.write(dir, yaml)))
                .hasMessageContaining("geo[2].region: 'mars' is not in the topology (expected one of: cn, eu, us)");
    }

    @Test
    void aRecordNameOutsideTheZone_isAProblem() {
        String yaml = ZoneFiles.DNS_YAML.replace("  gw1.cn: {", "  gw1.example.org.: {");
        assertThatThrownBy(() -> DnsConfig.read(ZoneFiles.write(dir, yaml)))
                .hasMessageContaining("records.gw1.example.org.: 'gw1.example.org.' is outside the zone"
                                      + " shop.example.");
    }

    @Test
    void theStateSourceIsTheGatewaysControlPlaneOrStaticFiles() {
        String yaml = ZoneFiles.DNS_YAML.replace(
                "static: {topology: topology.yaml, health: health.yaml, reload_interval: 100ms}",
                "control_plane: {url: 'http://127.0.0.1:7000', state_file: state.json}");
        DnsConfig c = DnsConfig.read(ZoneFiles.write(dir, yaml));
        assertThat(c.source()).isEqualTo(new StateSource.ControlPlane("http://127.0.0.1:7000", "", null,
                                                                      dir.resolve("state.json"), null, false));
        assertThat(List.of(c.listen().getPort())).containsExactly(0);
    }

    @Test
    void tcpBounds_defaultWhenAbsent_andEachMistakeNamed() {
        assertThat(DnsConfig.read(ZoneFiles.write(dir)).tcp()).isEqualTo(DnsConfig.Tcp.DEFAULT);
        assertThat(DnsConfig.read(ZoneFiles.write(dir, ZoneFiles.DNS_YAML
                + "tcp: {max_connections: 50, idle_timeout: 3s}\n")).tcp())
                .isEqualTo(new DnsConfig.Tcp(50, java.time.Duration.ofSeconds(3)));
        assertThatThrownBy(() -> DnsConfig.read(ZoneFiles.write(dir, ZoneFiles.DNS_YAML
                + "tcp: {max_connections: 0, idle_timeout: 0s, idle: 1s}\n")))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(
                        e.problems().stream().map(p -> p.replace(dir + "/", ""))).containsExactlyInAnyOrder(
                        "dns.yaml:19: tcp.idle: unknown key (expected one of: max_connections, idle_timeout)",
                        "dns.yaml:19: tcp.max_connections: 0 (expected: a count from 1 to 1000000)",
                        "dns.yaml:19: tcp.idle_timeout: '0s' (expected: a duration above 0, like 500ms, 5s, 2m or"
                        + " 1h)"));
    }

    @Test
    void rateLimit_offWhenAbsent_bindsDefaults_andEachMistakeNamed() {
        assertThat(DnsConfig.read(ZoneFiles.write(dir)).rateLimit()).isNull();
        assertThat(DnsConfig.read(ZoneFiles.write(dir, ZoneFiles.DNS_YAML
                + "rate_limit: {responses_per_second: 10}\n")).rateLimit())
                .isEqualTo(new DnsConfig.RateLimit(10, 2, 24, 56, 65_536));
        assertThatThrownBy(() -> DnsConfig.read(ZoneFiles.write(dir, ZoneFiles.DNS_YAML
                + "rate_limit: {slip: 11, ipv4_prefix: 33, ipv6_prefix: 65, table_size: 10}\n")))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(
                        e.problems().stream().map(p -> p.replace(dir + "/", ""))).containsExactlyInAnyOrder(
                        "dns.yaml:19: rate_limit.responses_per_second: missing (expected: answers a second per"
                        + " client network and answer, e.g. 10)",
                        "dns.yaml:19: rate_limit.slip: 11 (expected: 0 (drop every limited answer) to 10)",
                        "dns.yaml:19: rate_limit.ipv4_prefix: 33 (expected: a prefix from 0 to 32)",
                        "dns.yaml:19: rate_limit.ipv6_prefix: 65 (expected: a prefix from 0 to 64)",
                        "dns.yaml:19: rate_limit.table_size: 10 (expected: a count from 1024 to 16777216)"));
    }
}
