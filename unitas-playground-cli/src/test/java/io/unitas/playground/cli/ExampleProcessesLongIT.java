package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code up --processes} with the example pair on two regions, as a user starts it from the packaged jar: an order of
 * a cn user entering at eu's gateway of the example is served in cn, by a cn inventory instance; {@code SIGTERM} to
 * the command leaves nothing it started running. Only with {@code -Dunitas.long-drills=true} (the start of 21 JVMs
 * takes minutes on two cores): {@code mvn -B -ntp -o -pl unitas-playground-cli -am verify -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ExampleProcessesLongIT -Dunitas.long-drills=true}.
 */
@EnabledIfSystemProperty(named = "unitas.long-drills", matches = "true")
class ExampleProcessesLongIT {

    private static final Pattern PID = Pattern.compile("\\(pid (\\d+), log ([^)]+)\\)");

    @Test
    void anOrderEnteringAtAnotherRegion_isServedInTheUsersRegion_andSigtermLeavesNothingRunning(@TempDir Path dir)
            throws Exception {
        int from = Ports.range(80);
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process p = new ProcessBuilder(List.of("java", "-jar",
                Cli.root().resolve("unitas-playground-cli/target/unitas-playground.jar").toString(), "up",
                "--processes", "--regions", "cn,eu", "--ports-from", Integer.toString(from)))
                .directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            Await.until("up --processes ready", Duration.ofMinutes(25),
                        () -> !p.isAlive() || read(out).contains("ready. Ctrl-C stops every process."));
            assertThat(p.isAlive()).as(read(out) + read(err)).isTrue();
            assertThat(read(out)).contains("cn/order-b", "eu/inventory-b", "eu/example-gateway");

            // eu is the second region: its example gateway is the last of the three ports after the regions' blocks
            URI euOrders = URI.create("http://127.0.0.1:" + (from + 10 * 3 + 3 + 2) + "/orders");
            HttpResponse<String> order = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(euOrders).header("x-user-id", "42")
                               .header("content-type", "application/json")
                               .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"book\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(order.statusCode()).as(order.body()).isEqualTo(201);
            assertThat(order.body()).contains("\"region\":\"cn\"", "\"instance\":\"inventory-cn-");
            assertThat(order.body()).doesNotContain("\"region\":\"eu\"");
        } finally {
            p.destroy(); // SIGTERM, as Ctrl-C
            p.waitFor(5, TimeUnit.MINUTES);
            System.out.print(read(out) + read(err));
        }

        assertThat(p.isAlive()).as("the command ended after SIGTERM").isFalse();
        Matcher pids = PID.matcher(read(err));
        List<Long> started = new ArrayList<>();
        while (pids.find()) {
            started.add(Long.parseLong(pids.group(1)));
        }
        assertThat(started).as("the processes it named").hasSizeGreaterThanOrEqualTo(2 * 9);
        for (long pid : started) {
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("pid " + pid + " after the end")
                                                                             .isEmpty();
        }
        for (int port = from; port < from + 36; port++) {
            assertThat(listening(port)).as("port " + port + " after the end").isFalse();
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
