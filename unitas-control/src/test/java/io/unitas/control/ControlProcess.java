package io.unitas.control;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A control plane in a child JVM, so that tests can {@code kill -9} it. {@link #main} is the child's entry:
 * {@code <data dir> <tokens file> [etcd endpoint]}; it prints {@code PORT <n>} once it serves.
 */
final class ControlProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    private ControlProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static ControlProcess start(Path data, Path tokens, String etcd, Path log) {
        return start(data, tokens, etcd, log, "256m");
    }

    /** A control plane with {@code heap} as its maximum heap, ended by its first out-of-memory as the launcher's. */
    static ControlProcess start(Path data, Path tokens, String etcd, Path log, String heap) {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"), "-Xmx" + heap,
                "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), ControlProcess.class.getName(), data.toString(),
                tokens.toString()));
        if (etcd != null) {
            command.add(etcd);
        }
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                                                   .start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null || !line.startsWith("PORT ")) {
                p.destroyForcibly();
                throw new IllegalStateException("control process did not start: " + line + " (see " + log + ")");
            }
            return new ControlProcess(p, Integer.parseInt(line.substring(5).strip()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Whether the process is still running. */
    boolean alive() {
        return process.isAlive();
    }

    /** {@code kill -9}: no shutdown hook, no flush, no goodbye to etcd. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        kill();
    }

    public static void main(String[] args) throws Exception {
        ControlServer.Builder b = ControlServer.builder().port(0).dataDir(Path.of(args[0])).tokens(Path.of(args[1]))
                                               .tick(Duration.ofMillis(50)).leaderLease(Duration.ofSeconds(2));
        if (args.length > 2) {
            b.etcd(List.of(URI.create(args[2])));
        }
        ControlServer server = b.start();
        System.out.println("PORT " + server.port());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
