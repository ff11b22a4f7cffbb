package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.testkit.Ports;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment of separate processes, started by the packaged jar as a user starts it: the short
 * {@code region-down} drill on two regions, every process of the faulted region killed with {@code kill -9}; the
 * invariants hold, the other region's users are served through the fault, and once the command ends nothing it
 * started is left running.
 */
class ProcessDeploymentIT {

    private static final Pattern PID = Pattern.compile("\\(pid (\\d+), log ([^)]+)\\)");

    @Test
    void regionDown_onProcesses_keepsTheInvariants_servesTheOtherRegion_andLeavesNothingRunning(@TempDir Path dir)
            throws Exception {
        int from = Ports.range(40);
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        List<String> command = new ArrayList<>(List.of("java", "-jar",
                Cli.root().resolve("unitas-playground-cli/target/unitas-playground.jar").toString(), "drill", "region-down", "--processes",
                "--regions", "cn,eu", "--duration", "20s", "--users", "4", "--ports-from", Integer.toString(from)));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
                                               .redirectError(err.toFile()).start();
        // about two minutes on a quiet 2-core machine; a start under a load average of 40 took ten (docs/deploy.md)
        boolean ended = p.waitFor(15, TimeUnit.MINUTES);
        String terminal = Files.readString(out) + Files.readString(err);
        System.out.print(terminal);
        if (!ended) {
            p.destroy();
            p.waitFor(60, TimeUnit.SECONDS);
        }

        assertThat(ended).as("the drill ended").isTrue();
        assertThat(p.exitValue()).as(terminal).isZero();
        assertThat(Files.readString(out)).contains("invariants hold");
        Matcher served = Pattern.compile("the others (\\d+)/(\\d+)").matcher(Files.readString(out));
        assertThat(served.find()).as(terminal).isTrue();
        assertThat(Long.parseLong(served.group(2))).as("eu's users asked during the fault").isPositive();
        assertThat(Long.parseLong(served.group(1))).as("eu's users served during the fault")
                                                   .isEqualTo(Long.parseLong(served.group(2)));
        for (String file : List.of("topology.yaml", "rules.yaml", "cn/gateway.yaml", "cn/health.yaml",
                                   "cn/wallet-a.properties", "eu/gateway.yaml", "control/control.log")) {
            assertThat(dir.resolve("deploy").resolve(file)).as("deploy/" + file).isRegularFile();
        }

        Matcher pids = PID.matcher(Files.readString(err));
        List<Long> started = new ArrayList<>();
        while (pids.find()) {
            started.add(Long.parseLong(pids.group(1)));
        }
        assertThat(started).as("the processes it named").hasSizeGreaterThanOrEqualTo(6);
        for (long pid : started) {
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("pid " + pid + " after the end")
                                                                             .isEmpty();
        }
        for (int port = from; port < from + 30; port++) {
            assertThat(listening(port)).as("port " + port + " after the end").isFalse();
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
