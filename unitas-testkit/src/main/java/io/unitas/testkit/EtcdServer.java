package io.unitas.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A single-member etcd ({@code etcd} from Debian's {@code etcd-server}) on free ports of 127.0.0.1, with its data
 * in a temporary directory. Tests that share one keep apart by key prefix.
 */
public final class EtcdServer implements AutoCloseable {

    private static final Duration SLOW = Duration.ofSeconds(30);
    private static final Shared<EtcdServer> SHARED = new Shared<>(EtcdServer::start, EtcdServer::close);

    private final Path dir = ServerProcesses.tempDir("unitas-etcd-", null);
    private final int clientPort = Ports.free();
    private final int peerPort = Ports.free();
    private Process process;

    private EtcdServer() {}

    /** The server shared by every test of this JVM, started on first use and stopped when the JVM exits. */
    public static EtcdServer shared() {
        return SHARED.get();
    }

    /** Starts a new server; the caller closes it. */
    public static EtcdServer start() {
        return Shared.booted(new EtcdServer(), EtcdServer::boot);
    }

    private void boot() {
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        process = ServerProcesses.start(List.of(binary(), "--name", "unitas-test", "--data-dir",
                dir.resolve("member").toString(), "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster",
                "unitas-test=" + peer, "--logger", "zap", "--log-level", "error"), dir.resolve("etcd.log"));
        HttpClient http = HttpClient.newHttpClient();
        ServerProcesses.await("etcd health", SLOW, () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("etcd exited; see " + dir.resolve("etcd.log"));
            }
            String body = http.send(HttpRequest.newBuilder(endpoint().resolve("/health")).build(),
                                    HttpResponse.BodyHandlers.ofString()).body();
            if (!body.contains("\"health\":\"true\"")) {
                throw new IOException("not healthy yet: " + body);
            }
            return null;
        });
    }

    private static String binary() {
        for (String candidate : List.of("/usr/bin/etcd", "/usr/local/bin/etcd")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        throw new IllegalStateException("etcd: not installed (expected: Debian's etcd-server; run .ci/install-servers)");
    }

    /** The client endpoint, {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + clientPort);
    }

    /** Stops the server and deletes its data. */
    @Override
    public void close() {
        ServerProcesses.stop(process);
        ServerProcesses.delete(dir);
    }
}
