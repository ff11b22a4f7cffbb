package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DnsCommandTest {

    @TempDir
    Path dir;

    @Test
    void everyMistakeOfDnsYamlIsOneLine_allAtOnce_exit2() {
        Cli.file(dir, "topology.yaml", "regions: [cn, eu, us]\n");
        Cli.file(dir, "health.yaml", "{cn: true, eu: true, us: true}\n");
        String config = Cli.file(dir, "dns.yaml", """
                zone: shop.example.
                listen: 127.0.0.1:0
                geo:
                  - {cidr: 10.1.0.0/16, region: cn}
                  - {cidr: 10.2.0.0/16, region: eu}
                  - {cidr: 10.0.0.0/8, region: us}
                  - {cidr: 0.0.0.0/0, region: us}
                records:
                  www: {cn: [10.0.1.1], us: [10.0.3.1]}
                  www.example.org.: {cn: [10.0.1.1], eu: [10.0.2.1], us: [10.0.3.1]}
                services:
                  _api._tcp: {cn: [{target: gw1.cn, port: 8443, weight: 65536}], eu: [], us: []}
                static: {topology: topology.yaml, health: health.yaml}
                """);
        Cli r = Cli.run("dns", "--config", config);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).containsExactlyInAnyOrder(
                config + ":9: records.www: region eu missing (expected: an entry for every region: cn, eu, us)",
                config + ":10: records.www.example.org.: 'www.example.org.' is outside the zone shop.example.",
                config + ":12: services._api._tcp.cn[0].weight: 65536 (expected: a weight from 0 to 65535)");
    }

    @Test
    void aBadCidrIsNamed_exit2() {
        Cli.file(dir, "topology.yaml", "regions: [cn]\n");
        Cli.file(dir, "health.yaml", "{cn: true}\n");
        String config = Cli.file(dir, "dns.yaml", """
                zone: shop.example.
                listen: 127.0.0.1:0
                geo: [{cidr: 10.1.0.0/40, region: cn}]
                static: {topology: topology.yaml, health: health.yaml}
                """);
        Cli r = Cli.run("dns", "--config", config);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(config + ":3: geo[0].cidr: '10.1.0.0/40' (expected: a prefix from /0 to /32)");
    }

    @Test
    void aBadStateFileStopsTheStart_exit2() {
        Cli.file(dir, "topology.yaml", "regions: [cn]\n");
        Cli.file(dir, "health.yaml", "{mars: true}\n");
        String config = Cli.file(dir, "dns.yaml", """
                zone: shop.example.
                listen: 127.0.0.1:0
                geo: [{cidr: 0.0.0.0/0, region: cn}]
                records: {www: {cn: [10.0.1.1]}}
                static: {topology: topology.yaml, health: health.yaml}
                """);
        Cli r = Cli.run("dns", "--config", config);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("health.yaml:1:").contains("mars");
    }
}
