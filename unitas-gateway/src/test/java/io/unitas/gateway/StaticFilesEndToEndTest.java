package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.RequestHeaders;

/**
 * The gateway run the way {@code unitas gateway --config gateway.yaml} runs it without a control plane: from
 * topology, rules, health and fences files, watched and reloaded on change.
 */
class StaticFilesEndToEndTest {

    static final String RULES = """
            units:
              - {id: u-cn, region: cn}
              - {id: u-eu, region: eu}
            key:
              sources: [{header: x-user-id}]
              transform: mod 10000
              missing: reject
            ranges:
              - {range: 0~4999, unit: u-cn}
              - {range: 5000~9999, unit: u-eu}
            """;

    @TempDir
    Path dir;
    final Backend cnMain = new Backend("cn-main");
    final Backend euMain = new Backend("eu-main");
    Gateway gateway;
    WebClient client;

    @BeforeEach
    void start() throws Exception {
        Files.writeString(dir.resolve("topology.yaml"), "regions: [cn, eu]\n");
        Files.writeString(dir.resolve("rules.yaml"), RULES);
        Files.writeString(dir.resolve("health.yaml"), "cn: {healthy: true}\neu: {healthy: true}\n");
        Files.writeString(dir.resolve("fences.yaml"), "{}\n");
        Files.writeString(dir.resolve("gateway.yaml"), """
                region: cn
                listen: 127.0.0.1:0
                upstreams:
                  cn: {endpoints: [%s]}
                  eu: {endpoints: [%s]}
                health_check: {path: /healthz, interval: 1s}
                access_log: off
                static:
                  topology: topology.yaml
                  rules: rules.yaml
                  health: health.yaml
                  fences: fences.yaml
                  reload_interval: 100ms
                """.formatted(cnMain.endpoint(), euMain.endpoint()));
        gateway = Gateway.start(GatewayConfig.read(dir.resolve("gateway.yaml")));
        client = WebClient.of("http://127.0.0.1:" + gateway.port());
    }

    @AfterEach
    void stop() {
        gateway.close();
        cnMain.close();
        euMain.close();
    }

    AggregatedHttpResponse send(HttpMethod method, String user) {
        return client.execute(RequestHeaders.builder(method, "/a").add("x-user-id", user).build()).aggregate().join();
    }

    static void eventually(Supplier<Boolean> condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.get()) {
            assertThat(System.nanoTime()).as("condition still false after 10s").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** Rewrites a file so that its modification time surely changes. */
    void rewrite(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(file).toMillis() + 2000));
    }

    @Test
    void aHealthFileChangeMovesUsersToTheirFallbackAndBack() throws Exception {
        assertThat(send(HttpMethod.GET, "7000").contentUtf8()).startsWith("backend=eu-main");
        rewrite("health.yaml", "cn: {healthy: true}\neu: {healthy: false, reasons: [pg read-only]}\n");
        eventually(() -> send(HttpMethod.GET, "7000").contentUtf8().startsWith("backend=cn-main"));
        assertThat(send(HttpMethod.GET, "7000").headers().get("x-unitas-route")).isEqualTo("failover");
        rewrite("health.yaml", "cn: true\neu: true\n");
        eventually(() -> send(HttpMethod.GET, "7000").contentUtf8().startsWith("backend=eu-main"));
    }

    @Test
    void aFencesFileChangeFencesWritesAndABrokenChangeIsRefusedKeepingTheLastGoodState() throws Exception {
        long before = gateway.revision();
        rewrite("fences.yaml", "u-eu: {mode: reject, retry_after: 3s}\n");
        eventually(() -> send(HttpMethod.POST, "7000").status().code() == 503);
        assertThat(send(HttpMethod.POST, "7000").headers().get("retry-after")).isEqualTo("3");
        assertThat(send(HttpMethod.GET, "7000").status().code()).isEqualTo(200);
        long fenced = gateway.revision();
        assertThat(fenced).isGreaterThan(before);

        rewrite("rules.yaml", RULES.replace("5000~9999", "4000~9999"));
        Thread.sleep(500);
        assertThat(gateway.revision()).isEqualTo(fenced);
        assertThat(send(HttpMethod.POST, "7000").status().code()).isEqualTo(503);
        assertThat(send(HttpMethod.GET, "1000").contentUtf8()).startsWith("backend=cn-main");
    }
}
