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
 * in a temporary directory. Tests that share one keep apart by key prefix. {@link #startSecure()} starts one that
 * speaks only TLS, asks clients for a certificate of its CA, and requires a user and password (etcd's auth), with
 * certificates made by {@code openssl}.
 */
public final class EtcdServer implements AutoCloseable {

    private static final Duration SLOW = Duration.ofSeconds(30);
    private static final Shared<EtcdServer> SHARED = new Shared<>(EtcdServer::start, EtcdServer::close);

    private final Path dir = ServerProcesses.tempDir("unitas-etcd-", null);
    private final int clientPort = Ports.free();
    private final int peerPort = Ports.free();
    private final boolean secure;
    private Process process;
    private Credentials credentials;

    /**
     * What a client of a secure server needs: the CA that signed the server's certificate, a client certificate and
     * key (PEM, PKCS#8) signed by the same CA, and a user with its password.
     */
    public record Credentials(Path ca, Path cert, Path key, String user, String password) {}

    private EtcdServer(boolean secure) {
        this.secure = secure;
    }

    /** The server shared by every test of this JVM, started on first use and stopped when the JVM exits. */
    public static EtcdServer shared() {
        return SHARED.get();
    }

    /** Starts a new server; the caller closes it. */
    public static EtcdServer start() {
        return Shared.booted(new EtcdServer(false), EtcdServer::boot);
    }

    /** Starts a new server that requires TLS, a client certificate and a password; the caller closes it. */
    public static EtcdServer startSecure() {
        return Shared.booted(new EtcdServer(true), EtcdServer::boot);
    }

    private void boot() {
        if (!secure) {
            boot(List.of(), HttpClient.newHttpClient());
            return;
        }
        // Users and auth are set up in plaintext on the fresh data directory, then the server restarts on TLS.
        boot(List.of(), HttpClient.newHttpClient());
        String password = "pw-" + Long.toHexString(System.nanoTime());
        HttpClient http = HttpClient.newHttpClient();
        post(http, "/v3/auth/user/add", "{\"name\":\"root\",\"password\":\"" + password + "\"}");
        post(http, "/v3/auth/role/add", "{\"name\":\"root\"}");
        post(http, "/v3/auth/user/grant", "{\"user\":\"root\",\"role\":\"root\"}");
        post(http, "/v3/auth/enable", "{}");
        ServerProcesses.stop(process);
        Path certs = dir.resolve("certs");
        credentials = TestCertificates.make(certs, password);
        boot(List.of("--cert-file", certs.resolve("server.crt").toString(), "--key-file",
                     certs.resolve("server.key").toString(), "--client-cert-auth", "--trusted-ca-file",
                     credentials.ca().toString()),
             HttpClient.newBuilder().sslContext(TestCertificates.clientContext(certs)).build());
    }

    private void post(HttpClient http, String path, String body) {
        ServerProcesses.await("etcd " + path, SLOW, () -> {
            HttpResponse<String> res = http.send(HttpRequest.newBuilder(endpoint().resolve(path))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() != 200) {
                throw new IOException(path + ": " + res.statusCode() + " " + res.body());
            }
            return null;
        });
    }

    private void boot(List<String> tls, HttpClient http) {
        String client = endpoint().toString();
        String peer = "http://127.0.0.1:" + peerPort;
        List<String> command = new java.util.ArrayList<>(List.of(binary(), "--name", "unitas-test", "--data-dir",
                dir.resolve("member").toString(), "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster",
                "unitas-test=" + peer, "--logger", "zap", "--log-level", "error"));
        command.addAll(tls);
        process = ServerProcesses.start(command, dir.resolve("etcd.log"));
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

    /** The client endpoint, {@code http://127.0.0.1:<port>}, or {@code https://} for a secure server. */
    public URI endpoint() {
        return URI.create((credentials != null ? "https" : "http") + "://127.0.0.1:" + clientPort);
    }

    /** A secure server's CA, client certificate and user; empty for a plaintext one. */
    public java.util.Optional<Credentials> credentials() {
        return java.util.Optional.ofNullable(credentials);
    }

    /** Stops the server and deletes its data. */
    @Override
    public void close() {
        ServerProcesses.stop(process);
        ServerProcesses.delete(dir);
    }
}
