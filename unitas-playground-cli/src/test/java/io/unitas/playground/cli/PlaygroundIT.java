package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.testkit.Ports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code unitas demo} and {@code unitas up} as separate processes of the packaged jar, as a user starts them. */
class PlaygroundIT {

    /** The first line of a java.util.logging record ("Dec 01, 2026 11:04:57 AM io.unitas…") or its level line. */
    private static final Pattern LOG_LINE = Pattern.compile(
            "^([A-Z][a-z]{2} \\d{1,2}, \\d{4} \\d{1,2}:\\d{2}:\\d{2} [AP]M .*|(SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST): .*)$");

    private static ProcessBuilder unitas(String... args) {
        Path root = Cli.root();
        List<String> command = new ArrayList<>(List.of("java", "-jar",
                                                       root.resolve("unitas-playground-cli/target/unitas-playground.jar").toString()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(root.toFile());
    }


    /**
     * The demo with every scenario, shortened: the table on stdout, a report whose table and charts carry the same
     * numbers, and — while cn's database, cn itself and the control plane go down — not one log line on the
     * terminal: the pieces' logs are in the file the demo names.
     */
    @Test
    void demo_all_prints_the_table_writes_a_report_with_its_numbers_and_keeps_the_pieces_logs_in_the_named_file(
            @TempDir Path dir) throws Exception {
        Path report = dir.resolve("demo.html");
        Path log = dir.resolve("demo.log");
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process p = unitas("demo", "--all", "--duration", "5s", "--users", "4", "--ports-from",
                           Integer.toString(Ports.range(DrillOptions.SECOND_PLAYGROUND_OFFSET + 40)), "--report",
                           report.toString(), "--log", log.toString())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
        String terminal = Files.readString(out) + Files.readString(err);
        System.out.print(terminal);

        assertThat(p.exitValue()).as(terminal).isZero();
        List<List<String>> printed = ReportPage.textRows(Files.readString(out));
        assertThat(printed).extracting(row -> row.get(0) + " " + row.get(1)).containsExactly(
                "db-readonly unitas", "db-readonly naive", "replication-backlog unitas", "replication-backlog naive",
                "region-down unitas", "region-down naive", "control-plane-down unitas", "control-plane-down naive",
                "dns-down unitas", "dns-down naive");
        ReportPage page = ReportPage.read(report);
        assertThat(page.rows()).isEqualTo(printed);
        assertThat(page.charts()).hasSize(printed.size());
        for (int i = 0; i < printed.size(); i++) {
            ReportPage.Chart chart = page.charts().get(i);
            assertThat(chart.scenario() + " " + chart.mode()).isEqualTo(printed.get(i).get(0) + " "
                                                                         + printed.get(i).get(1));
            assertThat(chart.series()).containsKey("errors");
            assertThat(chart.series().values()).allSatisfy(values -> assertThat(values).hasSize(6));
            assertThat(chart.total()).as("every request of %s %s in its chart", chart.scenario(), chart.mode())
                                     .isEqualTo(Long.parseLong(requests(printed.get(i)))).isPositive();
        }

        assertThat(terminal.lines().filter(l -> LOG_LINE.matcher(l).matches()).toList()).isEmpty();
        assertThat(terminal).contains("fault injected: the control plane dies")
                            .contains("the pieces' logs go to " + log)
                            .contains("logs: " + log.toAbsolutePath() + " (");
        assertThat(Files.readAllLines(log)).as("the pieces' warnings while cn and the control plane were down")
                                           .anyMatch(l -> l.startsWith("WARNING: ") || l.startsWith("SEVERE: "));
    }

    /** The requests column: the one before the example's wrong-region calls and the verdict on the invariants. */
    private static String requests(List<String> row) {
        return row.get(row.size() - 3);
    }

    @Test
    void up_prints_its_ports_serves_a_user_through_a_gateway_and_stops_cleanly_on_sigterm(@TempDir Path dir)
            throws Exception {
        int from = Ports.range(40);
        Path err = dir.resolve("stderr");
        Process p = unitas("up", "--ports-from", Integer.toString(from)).redirectError(err.toFile()).start();
        List<String> printed = Collections.synchronizedList(new ArrayList<>());
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        printed.add(line);
                        if (line.startsWith("ready.")) {
                            return true;
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
                return false;
            });
            assertThat(ready.get(3, TimeUnit.MINUTES)).as("%s%n%s", printed, Files.readString(err)).isTrue();

            Matcher cn = Pattern.compile("^cn +(http://127\\.0\\.0\\.1:(\\d+)) ").matcher(
                    printed.stream().filter(l -> l.startsWith("cn ")).findFirst().orElse(""));
            assertThat(cn.find()).as(String.join("\n", printed)).isTrue();
            assertThat(Integer.parseInt(cn.group(2))).isEqualTo(from + 10);
            assertThat(printed).anyMatch(l -> l.startsWith("control plane and console: http://127.0.0.1:" + from));
            Path workDir = Path.of(printed.stream().filter(l -> l.startsWith("configuration files: ")).findFirst()
                                          .orElseThrow().substring("configuration files: ".length()).trim());
            assertThat(workDir.resolve("gateway-cn.yaml")).exists();

            // HTTP/1.1 as curl sends it (the JDK client's default h2c upgrade of a POST is answered 413 by the
            // gateway's listener).
            HttpResponse<String> register = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                    HttpRequest.newBuilder(URI.create(cn.group(1) + "/register")).timeout(Duration.ofSeconds(30))
                               .header("x-user-id", "1").POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"Ann\"}"))
                               .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(register.statusCode()).as(register.body()).isEqualTo(201);
            // cn when cn's health reaches the control plane in time; on a starved machine a late push can make cn
            // stale and the user is served by its fallback, which is the product working too.
            assertThat(register.headers().firstValue("x-unitas-served-by")).get().isIn("cn", "eu", "us");

            p.destroy();  // SIGTERM; Ctrl-C (SIGINT) runs the same shutdown hook
            assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
            assertThat(Files.readString(err)).contains("unitas up: stopping ...").contains("unitas up: stopped");
            assertThat(p.exitValue()).isIn(0, 143);
            assertThat(workDir).doesNotExist();
            try (ServerSocket again = new ServerSocket(from + 10, 1, InetAddress.getLoopbackAddress())) {
                assertThat(again.getLocalPort()).as("cn's gateway port is free again").isEqualTo(from + 10);
            }
        } finally {
            p.destroyForcibly();
        }
    }
}
