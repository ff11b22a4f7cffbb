package io.unitas.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real single-member etcd (Debian's {@code etcd-server}) of the test's own, on free loopback ports with a
 * temporary data directory; {@link #close()} kills it and removes the data.
 */
final class EtcdServer implements AutoCloseable {

    private final Process process;
    private final URI endpoint;
    private final Path dataDir;

    private EtcdServer(Process process, URI endpoint, Path dataDir) {
        this.process = process;
        this.endpoint = endpoint;
        this.dataDir = dataDir;
    }

    static EtcdServer start() {
        try {
            Path data = Files.createTempDirectory("unitas-etcd");
            int client = freePort();
            int peer = freePort();
            String clientUrl = "http://127.0.0.1:" + client;
            String peerUrl = "http://127.0.0.1:" + peer;
            Process p = new ProcessBuilder(List.of(binary(), "--name", "unitas-test", "--data-dir",
                    data.resolve("member").toString(), "--listen-client-urls", clientUrl, "--advertise-client-urls",
                    clientUrl, "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
                    "--initial-cluster", "unitas-test=" + peerUrl, "--logger", "zap", "--log-level", "error"))
                    .redirectErrorStream(true).redirectOutput(data.resolve("etcd.log").toFile()).start();
            EtcdServer server = new EtcdServer(p, URI.create(clientUrl), data);
            server.awaitHealthy();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start etcd", e);
        }
    }

    private static String binary() {
        for (String candidate : List.of("/usr/bin/etcd", "/usr/local/bin/etcd")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        throw new IllegalStateException("etcd: not installed (expected: Debian's etcd-server; run .ci/install-servers)");
    }

    private void awaitHealthy() {
        HttpClient http = HttpClient.newHttpClient();
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < end) {
            try {
                HttpResponse<String> res = http.send(HttpRequest.newBuilder(endpoint.resolve("/health")).build(),
                                                     HttpResponse.BodyHandlers.ofString());
                if (res.body().contains("\"health\":\"true\"")) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (!process.isAlive()) {
                break;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        close();
        throw new IllegalStateException("etcd did not become healthy; see its log in " + dataDir);
    }

    URI endpoint() {
        return endpoint;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            try (var files = Files.walk(dataDir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
