package io.unitas.playground.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.cli.Main;

import org.junit.jupiter.api.Test;

/** The {@code --processes} options' mistakes, each one line and exit 2, before anything starts. */
class ProcessesOptionsTest {

    @Test
    void dnsDown_runsOnProcesses_andItsOptionsAreChecked() {
        Cli r = Cli.run("drill", "dns-down", "--processes", "--naive", "--visit-every", "5ms");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err().strip()).isEqualTo("unitas drill: --visit-every: 5ms (expected: 10ms to 10s on processes,"
                                              + " an open loop)");
    }

    @Test
    void sagaCrash_runsOnProcesses_asTheHelpSays() {
        Cli r = Cli.run("drill", "--help");

        assertThat(r.exit()).isZero();
        assertThat(r.out().replaceAll("\\s+", " ")).contains("saga-crash kill -9 of its coordinator's own process"
                                                              + " mid-saga and of eu's postmaster");
    }

    @Test
    void partitionWithProcesses_isTheProcessDrill_notTheOneInProcess() {
        Cli r = Cli.run("drill", "partition", "--processes", "--naive", "--visit-every", "0ms");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err().strip()).isEqualTo("unitas drill: --visit-every: 0ms (expected: 10ms to 10s on processes,"
                                              + " an open loop)");
    }

    @Test
    void aClosedLoop_isRefusedOnProcesses() {
        Cli r = Cli.run("drill", "control-plane-down", "--processes", "--naive", "--visit-every", "0ms");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err().strip()).isEqualTo("unitas drill: --visit-every: 0ms (expected: 10ms to 10s on processes,"
                                              + " an open loop)");
    }

    @Test
    void theDemoOnProcesses_runsTheProcessDrill_andItsOptionsAreCheckedBeforeAnythingStarts() {
        Cli r = Cli.run("demo", "--processes", "--visit-every", "0ms");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err()).contains("--visit-every: 0ms (expected: 10ms to 10s on processes, an open loop)");
    }

    @Test
    void aBadRegionList_isOneLine() {
        Cli r = Cli.run("up", "--processes", "--regions", "cn");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err().strip()).startsWith("unitas up: --regions: regions: [cn] (expected: at least 2)");
    }

    @Test
    void anUnknownReplication_isOneLine_beforeAnythingStarts() {
        Cli r = Cli.run("up", "--processes", "--replication", "zookeeper");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err().strip()).isEqualTo("unitas up: --replication: 'zookeeper' (expected: kafka or none)");
    }

    @Test
    void noReplication_isOnlyForProcesses() {
        Cli r = Cli.run("up", "--replication", "none");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err().strip()).isEqualTo("unitas up: --replication: 'none' (expected: embedded or kafka)");
    }
}
