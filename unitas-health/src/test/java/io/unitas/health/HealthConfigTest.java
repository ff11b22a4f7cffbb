package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.config.ConfigException;
import io.unitas.core.Region;
import io.unitas.core.health.Gate;
import io.unitas.core.health.Thresholds;

class HealthConfigTest {

    @TempDir
    Path dir;

    /** The complete example of the documentation. */
    static final String EXAMPLE = """
            region: cn
            listen:
              address: 127.0.0.1
              http: 8081
              grpc: 8082
            defaults:
              interval: 500ms
              timeout: 1s
              fall: 2
              rise: 2
            checks:
              - name: pg-primary
                kind: postgres
                target: postgresql://postgres@127.0.0.1:5432/shop
                role: primary
                heartbeat: true
              - name: pg-standby
                kind: postgres
                target: postgresql://postgres@10.0.2.7:5432/shop
                role: standby
                max-lag: 5s
              - name: orders-db
                kind: mysql
                target: mysql://unitas:secret@127.0.0.1:3306/orders
                role: primary
                gate: writable
              - name: sessions
                kind: redis
                target: redis://127.0.0.1:6380
                role: replica
                max-lag: 2s
              - name: api
                kind: http
                target: http://127.0.0.1:8080/health
                status: 200-299
                body-contains: '"status":"UP"'
                interval: 2s
                timeout: 1500ms
              - name: edge
                kind: tcp
                target: 127.0.0.1:443
                gate: none
              - name: inventory
                kind: grpc
                target: 127.0.0.1:9090
                service: shop.Inventory
                fall: 3
              - name: cache-a
                kind: redis
                target: redis://127.0.0.1:7001
                gate: none
              - name: cache-b
                kind: redis
                target: redis://127.0.0.1:7002
                gate: none
              - name: cache-c
                kind: redis
                target: redis://127.0.0.1:7003
                gate: none
              - name: caches
                kind: at-least
                k: 2
                of: [cache-a, cache-b, cache-c]
              - name: maintenance-off
                kind: http
                target: http://127.0.0.1:8080/maintenance
                inverted: true
                gate: none
            push:
              url: http://127.0.0.1:7070/api/v1/health/cn
              token-env: UNITAS_PUSH_TOKEN
              every: 10s
            """;

    @Test
    void theDocumentedExampleReads() {
        HealthConfig config = HealthConfig.parse("health.yaml", EXAMPLE);

        assertThat(config.region()).isEqualTo(Region.of("cn"));
        assertThat(config.httpPort()).isEqualTo(8081);
        assertThat(config.grpcPort()).isEqualTo(8082);
        assertThat(config.checks()).extracting(CheckConfig::name).containsExactly("pg-primary", "pg-standby",
                "orders-db", "sessions", "api", "edge", "inventory", "cache-a", "cache-b", "cache-c", "caches",
                "maintenance-off");
        CheckConfig standby = config.check("pg-standby").orElseThrow();
        assertThat(standby.probe().role()).isEqualTo(ProbeConfig.Role.STANDBY);
        assertThat(standby.maxLag()).isEqualTo(Duration.ofSeconds(5));
        assertThat(standby.interval()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.check("orders-db").orElseThrow().gate()).isEqualTo(Gate.WRITABLE);
        assertThat(config.check("sessions").orElseThrow().maxLag()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.check("api").orElseThrow().timeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(config.check("inventory").orElseThrow().thresholds()).isEqualTo(new Thresholds(3, 2));
        CheckConfig caches = config.check("caches").orElseThrow();
        assertThat(caches.calculated()).isTrue();
        assertThat(caches.children()).containsExactly("cache-a", "cache-b", "cache-c");
        assertThat(caches.aggregation().unmet(2, 3)).isEmpty();
        assertThat(caches.aggregation().unmet(1, 3)).isNotEmpty();
        assertThat(config.check("maintenance-off").orElseThrow().inverted()).isTrue();
        assertThat(config.push().orElseThrow().tokenEnv()).isEqualTo("UNITAS_PUSH_TOKEN");
    }

    @Test
    void defaultsDetectAFailureWithinThreeSeconds() {
        HealthConfig config = HealthConfig.parse("health.yaml", """
                region: eu
                checks:
                  - {name: db, kind: tcp, target: '127.0.0.1:5432'}
                """);
        CheckConfig db = config.checks().get(0);

        // The worst case: the failure begins just after a probe; the next one starts an interval later and
        // each of the fall probes runs into its timeout.
        Duration worst = db.interval().plus(db.timeout().multipliedBy(db.thresholds().fall()));
        assertThat(worst).isLessThanOrEqualTo(Duration.ofSeconds(3));
        assertThat(config.address()).isEqualTo("127.0.0.1");
        assertThat(config.push()).isEmpty();
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', ignoreLeadingAndTrailingWhitespace = false, value = {
            "region: CN|health.yaml:1: region: 'CN' (expected: lowercase letters, digits, '-' or '_', at most 63)",
            "push: {url: 'http://control.internal:7070/api/v1/health/cn'}|health.yaml:9: push.url: 'http://control.internal:7070/api/v1/health/cn' is cleartext to another host: the bearer token would cross the network readable (expected: https://, or allow-insecure: true to accept that)",
            "push: {url: 'https://control.internal:8443/api/v1/health/cn', ca: nope.pem}|health.yaml:9: push.ca: nope.pem: no such file (expected: a PEM file of CA certificates)",
            "    kind: postgress|health.yaml:4: checks[0].kind: 'postgress' (expected one of: postgres, mysql, "
            + "redis, http, tcp, grpc, all, any, at-least)",
            "    target: localhost|health.yaml:5: checks[0].target: 'localhost' (expected: "
            + "postgresql://[user[:password]@]host[:port][/database][?param=value])",
            "    max-lag: 5 seconds|health.yaml:6: checks[0].max-lag: '5 seconds' (expected: a duration like 500ms, "
            + "5s, 2m or 1h)",
            "    role: leader|health.yaml:7: checks[0].role: 'leader' (expected: primary, standby or any)",
            "    fall: 0|health.yaml:8: checks[0].fall: 0 (expected: a whole number from 1 to 100)",
            "    status: 200|health.yaml:9: checks[0].status: unknown key (expected one of: name, kind, gate, "
            + "inverted, interval, timeout, fall, rise, target, role, max-lag, heartbeat, unitas-schema)",
    })
    void eachMistakeIsReportedWithItsFileLineAndPath(String mistake, String message) {
        String good = """
                region: cn
                checks:
                  - name: pg
                    kind: postgres
                    target: postgresql://127.0.0.1/shop
                    max-lag: 5s
                    role: standby
                    fall: 2
                """;
        String key = mistake.trim().substring(0, mistake.trim().indexOf(':'));
        String text = good.lines().anyMatch(l -> l.trim().startsWith(key + ":"))
                ? good.lines().map(l -> l.trim().startsWith(key + ":") ? mistake : l)
                        .reduce("", (a, b) -> a + b + "\n")
                : good + mistake + "\n";

        assertThatThrownBy(() -> HealthConfig.parse("health.yaml", text))
                .isInstanceOf(ConfigException.class).hasMessage(message);
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> HealthConfig.parse("health.yaml", """
                        checks:
                          - {name: a, kind: tcp, target: '127.0.0.1:1'}
                          - {name: a, kind: tcp}
                          - {name: q, kind: at-least, k: 3, of: [a, nope]}
                        """));

        assertThat(e.problems()).containsExactly(
                "health.yaml:1: region: missing (expected: the region id, like cn)",
                "health.yaml:3: checks[1].name: duplicate check 'a' (first at checks[0])",
                "health.yaml:3: checks[1].target: missing (expected: where to probe, like 127.0.0.1:443)",
                "health.yaml:4: checks[2].of[1]: unknown check 'nope' (expected one of: a)",
                "health.yaml:4: checks[2].k: 3 (expected: a whole number from 1 to 1)");
    }

    private String pushWithTokenFile(Path token) {
        return """
                region: cn
                checks:
                  - {name: db, kind: tcp, target: '127.0.0.1:5432'}
                push:
                  url: http://127.0.0.1:7070/api/v1/health/cn
                  token-file: %s
                """.formatted(token);
    }

    @Test
    void aPushTokenFileOthersMayRead_isRefused_namingTheFileAndTheFix() throws Exception {
        Path token = Files.writeString(dir.resolve("push-token"), "t0ken\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> HealthConfig.parse("health.yaml", pushWithTokenFile(token)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("health.yaml:6: push.token-file: " + token + ": the push token has mode rw-r--r--, open to"
                            + " others (expected: 600 or stricter, as chmod 600 " + token + " gives)");
    }

    @Test
    void aPushTokenFileThatIsALink_isRefused() throws Exception {
        Path real = Files.writeString(dir.resolve("real-token"), "t0ken\n");
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-------"));
        Path link = Files.createSymbolicLink(dir.resolve("push-token"), real);

        assertThatThrownBy(() -> HealthConfig.parse("health.yaml", pushWithTokenFile(link)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("health.yaml:6: push.token-file: " + link + ": the push token is a symbolic link"
                            + " (expected: a regular file, or none; remove the link)");
    }

    @Test
    void aPushTokenFileOfItsOwnerOnly_isAccepted() throws Exception {
        Path token = Files.writeString(dir.resolve("push-token"), "t0ken\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));

        assertThat(HealthConfig.parse("health.yaml", pushWithTokenFile(token)).push().orElseThrow().tokenFile())
                .isEqualTo(token);
    }
}
