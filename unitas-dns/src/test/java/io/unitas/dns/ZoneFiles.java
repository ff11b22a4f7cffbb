package io.unitas.dns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The zone as files in a directory: {@code dns.yaml}, {@code topology.yaml}, {@code health.yaml}. */
final class ZoneFiles {

    static final String DNS_YAML = """
            zone: shop.example.
            listen: 127.0.0.1:0
            metrics: 127.0.0.1:0
            ttl: {base: 300s, min: 30s}
            hold_down: 0s
            geo:
              - {cidr: 10.1.0.0/16, region: cn}
              - {cidr: 10.2.0.0/16, region: eu}
              - {cidr: 0.0.0.0/0,   region: us}
            records:
              www: {cn: [10.0.1.1, 10.0.1.2], eu: [10.0.2.1], us: [10.0.3.1, "2001:db8::3"]}
              gw1.cn: {cn: [10.0.1.1], eu: [10.0.1.1], us: [10.0.1.1]}
            services:
              _api._tcp:
                cn: [{target: gw1.cn, port: 8443, weight: 60}, {target: gw2.cn, port: 8443, weight: 40}]
                eu: [{target: gw1.eu, port: 8443, weight: 100}]
                us: [{target: gw1.us, port: 8443, weight: 100}]
            static: {topology: topology.yaml, health: health.yaml, reload_interval: 100ms}
            """;

    static final String TOPOLOGY = "regions: [{id: cn}, {id: eu}, {id: us}]\n";

    private ZoneFiles() {
    }

    /** Writes the zone into {@code dir} with every region healthy; returns the path of {@code dns.yaml}. */
    static Path write(Path dir) {
        return write(dir, DNS_YAML);
    }

    static Path write(Path dir, String dnsYaml) {
        try {
            Files.writeString(dir.resolve("topology.yaml"), TOPOLOGY);
            health(dir, "{cn: true, eu: true, us: true}");
            return Files.writeString(dir.resolve("dns.yaml"), dnsYaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replaces the health file at once (written beside it, then moved over it). */
    static void health(Path dir, String yaml) {
        try {
            Path tmp = Files.writeString(dir.resolve("health.yaml.tmp"), yaml);
            Files.move(tmp, dir.resolve("health.yaml"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                       java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
