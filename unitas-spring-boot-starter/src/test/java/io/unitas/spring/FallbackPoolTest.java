package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.resolver.FallbackPool;
import io.unitas.resolver.FallbackPoolSync;
import io.unitas.spring.follow.FollowingApp;
import io.unitas.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code unitas.resolver.pool-file}: the fallback pool a real control plane publishes is fetched, CRC32-checked and
 * kept on the service's disk, and shown in {@code /actuator/unitas}; with the control plane down at the next start the
 * file on disk is the pool, the failure is a reason in {@code /actuator/health/unitas}, and the service serves.
 */
class FallbackPoolTest {

    private static final ControlToken VIEWER = ControlToken.generate("wallets", Role.VIEWER);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;
    private ControlServer control;
    private ConfigurableApplicationContext service;

    @AfterEach
    void stop() {
        if (service != null) {
            service.close();
        }
        if (control != null) {
            control.close();
        }
    }

    @Test
    void thePublishedPool_isKeptOnDisk_andUsedWhenTheControlPlaneIsDownAtTheNextStart() throws Exception {
        Files.writeString(dir.resolve("tokens"), VIEWER.fileLine() + "\n");
        control = ControlServer.builder().port(0).dataDir(dir.resolve("control-data")).tokens(dir.resolve("tokens"))
                               .fallbackPool(List.of(InetAddress.getByName("10.0.0.1"),
                                                     InetAddress.getByName("10.0.0.2"))).start();
        String url = "--unitas.control-plane.url=http://127.0.0.1:" + control.port();
        Path file = dir.resolve("pool/fallback-pool.bin");
        Files.createDirectories(file.getParent());
        service = start(url, token(), "--unitas.resolver.pool-file=" + file);
        FallbackPoolSync sync = service.getBean(FallbackPoolSync.class);
        Await.until("the pool is fetched and kept", WAIT, () -> !sync.pool().addresses().isEmpty());
        assertThat(FallbackPool.decodeBinary(Files.readAllBytes(file)).encodeText()).isEqualTo("10.0.0.1\n10.0.0.2\n");
        assertThat(get("/actuator/unitas")).contains("\"fallback_pool\"", "10.0.0.1", "\"problem\":\"\"");
        assertThat(get("/actuator/health/unitas")).doesNotContain("fallback pool");
        service.close();
        int port = control.port();
        control.close();
        control = null;

        service = start("--unitas.control-plane.url=http://127.0.0.1:" + port, token(),
                        "--unitas.resolver.pool-file=" + file);
        FallbackPoolSync later = service.getBean(FallbackPoolSync.class);
        assertThat(later.pool().encodeText()).as("read from disk").isEqualTo("10.0.0.1\n10.0.0.2\n");
        Await.until("the refused fetch is reported", WAIT, () -> later.refused() > 0);
        assertThat(later.problem()).contains("keeping").doesNotContain("\n");
        String health = get("/actuator/health/unitas");
        assertThat(health).contains("\"status\":\"UP\"", "fallback pool: fetched pool refused");
        assertThat(get("/actuator/unitas")).contains("10.0.0.2", "\"refused\":");
        assertThat(FallbackPool.decodeBinary(Files.readAllBytes(file)).addresses()).hasSize(2);
    }

    @Test
    void aPoolFileWithoutAControlPlane_stopsTheStart_withOneLine() {
        assertThatThrownBy(() -> start("--unitas.resolver.pool-file=" + dir.resolve("pool.bin")))
                .rootCause().hasMessage("unitas.resolver.pool-file: set without unitas.control-plane.url (expected:"
                                        + " the control plane that publishes the pool)");
    }

    private static String token() {
        return "--unitas.control-plane.token=" + VIEWER.secret();
    }

    private ConfigurableApplicationContext start(String... args) {
        String[] all = new String[args.length + 4];
        all[0] = "--server.port=0";
        all[1] = "--unitas.write-guard.mode=allow";
        all[2] = "--unitas.control-plane.state-file=" + dir.resolve("state/last-good.json");
        all[3] = "--management.endpoint.health.show-details=always";
        System.arraycopy(args, 0, all, 4, args.length);
        return new SpringApplicationBuilder(FollowingApp.class).run(all);
    }

    private String get(String path) throws Exception {
        String port = service.getEnvironment().getProperty("local.server.port");
        HttpResponse<String> res = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                                        .build(), HttpResponse.BodyHandlers.ofString());
        return res.body();
    }
}
