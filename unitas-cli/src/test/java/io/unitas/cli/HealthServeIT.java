package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresCluster;

/** {@code ./unitas health serve} as a person runs it: a health.yaml, the launcher, curl-able endpoints. */
class HealthServeIT {

    private static HttpResponse<String> get(int port, String path) throws InterruptedException {
        try {
            return HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        }
    }

    @Test
    void serveAnswersReadyzForTheRegionAndFlipsWhenThePrimaryTurnsReadOnly(@TempDir Path dir) throws Exception {
        PostgresCluster pg = PostgresCluster.shared();
        int http = Ports.free();
        String config = Cli.file(dir, "health.yaml", """
                region: cn
                listen: {http: %d, grpc: %d}
                checks:
                  - name: pg-primary
                    kind: postgres
                    target: %s
                    role: primary
                """.formatted(http, Ports.free(), pg.primary().uri()));
        Process serve = new ProcessBuilder(Cli.root().resolve("unitas").toString(), "health", "serve",
                                           "--config", config)
                .directory(Cli.root().toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("serve.log").toFile()).start();
        try {
            HttpResponse<String> ready = null;
            for (int i = 0; i < 600 && (ready == null || ready.statusCode() != 200); i++) {
                Thread.sleep(200);
                ready = get(http, "/readyz");
            }
            assertThat(ready).isNotNull();
            assertThat(ready.body()).isEqualTo("ready: region cn\n");
            assertThat(get(http, "/healthz").body()).startsWith("{\"region\":\"cn\",\"sequence\":");

            pg.primary().execute("ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
            try {
                for (int i = 0; i < 100 && ready.statusCode() != 503; i++) {
                    Thread.sleep(50);
                    ready = get(http, "/readyz");
                }
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body()).contains("- pg-primary: read-only (transaction_read_only=on)");
                assertThat(get(http, "/livez").statusCode()).isEqualTo(200);
            } finally {
                pg.primary().execute("ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
            }
        } finally {
            serve.destroy();
            assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(dir.resolve("serve.log")).content().contains("unitas health: region cn, 1 check;")
                .contains(" healthy, score 1.0\n")
                .contains("UNHEALTHY, not writable, score 0.0: pg-primary: read-only");
    }
}
