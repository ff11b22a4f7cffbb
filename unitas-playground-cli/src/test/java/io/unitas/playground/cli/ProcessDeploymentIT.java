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
 * {@code db-readonly} drill on two regions (the seed's incident: cn's real PostgreSQL turned read-only while every
 * process stays up), with {@code --naive}: first on unitas's deployment, then on the naive setup's wallets, offered
 * the same load. Unitas's invariants hold, the other region's users are served through the fault, cn's unit is moved
 * to eu by the drill's failover policy (a failover time and an RPO in its row) and unitas serves at least as many
 * requests in the fault as naive; both sides are in the side-by-side table, naive's invariants counted (reported,
 * not asserted); once the command ends nothing it started is left running. ({@code region-down}, whose promotion
 * after {@code kill -9} can leave a deposit cn never shipped, is in {@link ProcessDrillsLongIT}: docs/deploy.md.)
 */
class ProcessDeploymentIT {

    private static final Pattern PID = Pattern.compile("\\(pid (\\d+), log ([^)]+)\\)");

    @Test
    void dbReadOnly_unitasAndNaive_unitasMovesTheUnit_keepsTheInvariants_servesMore_leavesNothingRunning(
            @TempDir Path dir) throws Exception {
        int from = Ports.range(40);
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        List<String> command = new ArrayList<>(List.of("java", "-jar",
                Cli.root().resolve("unitas-playground-cli/target/unitas-playground.jar").toString(), "drill", "db-readonly", "--processes", "--naive",
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
        String table = Files.readString(out);
        assertThat(table).contains("db-readonly on processes, unitas", "db-readonly on processes, naive");
        Matcher unitas = Pattern.compile("(?m)^db-readonly +unitas +(\\d+) .* hold$").matcher(table);
        Matcher naive = Pattern.compile("(?m)^db-readonly +naive +(\\d+) .*(hold|BROKEN)$").matcher(table);
        assertThat(unitas.find()).as("unitas's row holds: " + table).isTrue();
        assertThat(naive.find()).as("naive's row: " + table).isTrue();
        assertThat(Long.parseLong(naive.group(1))).as("naive served in the fault").isPositive();
        // cn's unit is moved to eu by the drill's failover policy: its users are served there meanwhile
        assertThat(Long.parseLong(unitas.group(1))).as("unitas's ok in the fault, at least naive's: " + table)
                                                   .isGreaterThanOrEqualTo(Long.parseLong(naive.group(1)));
        assertThat(table).as("cn's unit was moved, with its RPO").containsPattern(
                "(?m)^db-readonly +unitas +\\d+ +\\d+ of \\d+ +\\d+ +\\d+ +\\d+\\.\\d s +\\d+ ms ");
        Matcher served = Pattern.compile("the others (\\d+)/(\\d+)").matcher(Files.readString(out));
        assertThat(served.find()).as(terminal).isTrue();
        assertThat(Long.parseLong(served.group(2))).as("eu's users asked during the fault").isPositive();
        assertThat(Long.parseLong(served.group(1))).as("eu's users served during the fault")
                                                   .isEqualTo(Long.parseLong(served.group(2)));
        for (String file : List.of("topology.yaml", "rules.yaml", "cn/gateway.yaml", "cn/health.yaml",
                                   "cn/wallet-a.properties", "eu/gateway.yaml", "control/control.log")) {
            assertThat(dir.resolve("deploy").resolve(file)).as("deploy/" + file).isRegularFile();
        }
        for (String file : List.of("cn/rules.yaml", "cn/wallet-a.properties", "cn/wallet-a.log", "eu/rules.yaml")) {
            assertThat(dir.resolve("deploy-naive").resolve(file)).as("deploy-naive/" + file).isRegularFile();
        }

        Matcher pids = PID.matcher(Files.readString(err));
        List<Long> started = new ArrayList<>();
        while (pids.find()) {
            started.add(Long.parseLong(pids.group(1)));
        }
        assertThat(started).as("the processes it named, both sides").hasSizeGreaterThanOrEqualTo(8);
        for (long pid : started) {
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("pid " + pid + " after the end")
                                                                             .isEmpty();
        }
        for (int port = from; port < from + 40; port++) { // the regions' ports, then the links' proxies
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
