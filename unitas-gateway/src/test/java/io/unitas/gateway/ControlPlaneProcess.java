package io.unitas.gateway;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.unitas.control.ControlServer;

/**
 * A real unitas control plane in a child JVM on a given port, so a test can {@code kill -9} it and bring it back
 * on the same data. {@link #main} is the child's entry: {@code <port> <data dir> <tokens file>}; it prints
 * {@code PORT <n>} once it serves.
 */
final class ControlPlaneProcess implements AutoCloseable {

    private final Process process;
    final int port;

    private ControlPlaneProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static ControlPlaneProcess start(int port, Path data, Path tokens, Path log) {
        List<String> command = List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m",
                                       "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                                       ControlPlaneProcess.class.getName(), Integer.toString(port), data.toString(),
                                       tokens.toString());
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                                                   .start();
            String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (line == null || !line.startsWith("PORT ")) {
                p.destroyForcibly();
                throw new IllegalStateException("control plane did not start: " + line + " (see " + log + ")");
            }
            return new ControlPlaneProcess(p, Integer.parseInt(line.substring(5).strip()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code kill -9}. */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws Exception {
        ControlServer server = ControlServer.builder().port(Integer.parseInt(args[0])).dataDir(Path.of(args[1]))
                                            .tokens(Path.of(args[2]))
                                            .healthFreshness(Duration.ofHours(1), Duration.ofHours(1))
                                            .start();
        System.out.println("PORT " + server.port());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
