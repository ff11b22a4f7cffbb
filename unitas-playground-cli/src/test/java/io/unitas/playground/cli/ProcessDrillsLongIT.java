package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.testkit.Ports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The long process drills, unitas and naive side by side on three regions for 60 s each: only with
 * {@code -Dunitas.long-drills=true} (each takes several minutes on two cores; {@code ProcessDeploymentIT} is the short
 * one every {@code verify} runs):
 * {@code mvn -B -ntp -o -pl unitas-playground-cli -am verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=ProcessDrillsLongIT -Dunitas.long-drills=true}. Unitas's invariants hold in each; with the control plane
 * killed, no request of unitas's fails in the fault window or after it; with every DNS server killed, unitas's users
 * pick entries from the fallback pool, and with the network between regions cut or slowed, unitas serves at least as
 * many requests in the fault as naive. saga-crash runs its coordinator as a process of its own, {@code kill -9}ed
 * mid-saga.
 */
@EnabledIfSystemProperty(named = "unitas.long-drills", matches = "true")
class ProcessDrillsLongIT {

    @ParameterizedTest
    @ValueSource(strings = {"control-plane-down", "db-readonly", "region-down", "replication-backlog", "dns-down",
                            "partition", "slow-region"})
    void unitasAndNaive_sideBySide_unitasKeepsItsInvariants(String scenario, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process p = new ProcessBuilder(List.of("java", "-jar",
                Cli.root().resolve("unitas-playground-cli/target/unitas-playground.jar").toString(), "drill", scenario,
                "--processes", "--naive", "--duration", "60s", "--users", "6",
                "--ports-from", Integer.toString(Ports.range(80))))
                .directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = p.waitFor(30, TimeUnit.MINUTES);
        if (!ended) {
            p.destroy();
            p.waitFor(90, TimeUnit.SECONDS);
        }
        String table = Files.readString(out);
        String progress = Files.readString(err);
        System.out.print(table + progress);

        assertThat(ended).as("the drill ended").isTrue();
        assertThat(p.exitValue()).as(table).isZero();
        Matcher unitas = Pattern.compile("(?m)^" + scenario + " +unitas +(\\d+) +\\d+ of \\d+ +(\\d+) +(\\d+) .* hold$")
                                .matcher(table);
        assertThat(unitas.find()).as("unitas's row holds: " + table).isTrue();
        Matcher naive = Pattern.compile("(?m)^" + scenario + " +naive +(\\d+) ").matcher(table);
        assertThat(naive.find()).as("naive's row: " + table).isTrue();
        // every fault: unitas serves at least what naive serves in the window, on the same load
        assertThat(Long.parseLong(unitas.group(1))).as("unitas ok in fault, against naive's: " + table)
                                                   .isGreaterThanOrEqualTo(Long.parseLong(naive.group(1)));
        if (scenario.equals("control-plane-down")) {
            assertThat(unitas.group(2)).as("unitas failed in the fault").isEqualTo("0");
            assertThat(unitas.group(3)).as("unitas failed after it").isEqualTo("0");
        }
        if (scenario.equals("dns-down")) {
            assertThat(progress).as("unitas's users turned to the fallback pool")
                                .containsPattern("[1-9]\\d* from the fallback pool");
        }
    }

    /**
     * saga-crash on processes: the coordinator's own JVM kill -9ed mid-saga, eu's postmaster kill -9ed; with sagas the
     * credit is conserved and every transfer ends, with two local transactions credit is destroyed.
     */
    @Test
    void sagaCrash_coordinatorProcessKilledMidSaga_creditConserved_unlikeTwoLocalTransactions(@TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process p = new ProcessBuilder(List.of("java", "-jar",
                Cli.root().resolve("unitas-playground-cli/target/unitas-playground.jar").toString(), "drill",
                "saga-crash", "--processes"))
                .directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = p.waitFor(30, TimeUnit.MINUTES);
        if (!ended) {
            p.destroy();
            p.waitFor(90, TimeUnit.SECONDS);
        }
        String table = Files.readString(out);
        System.out.print(table + Files.readString(err));

        assertThat(ended).as("the drill ended").isTrue();
        assertThat(p.exitValue()).as(table).isZero();
        assertThat(table).containsPattern("(?m)^invariant +holds +BROKEN$");
        assertThat(table).containsPattern("(?m)^unfinished \\(neither\\) +0 +\\d+$");
        Matcher inFlight = Pattern.compile("(?m)^in flight when the coordinator died +(\\d+) +(\\d+)$")
                                  .matcher(table);
        assertThat(inFlight.find()).as(table).isTrue();
        assertThat(Integer.parseInt(inFlight.group(1))).as("killed mid-saga: " + table).isPositive();
        assertThat(dir.resolve("deploy/saga/unitas/coordinator-1.log")).as("the first coordinator's log").exists();
        assertThat(Files.readString(dir.resolve("deploy/saga/unitas/coordinator-2.log"))).contains("done");
    }
}
