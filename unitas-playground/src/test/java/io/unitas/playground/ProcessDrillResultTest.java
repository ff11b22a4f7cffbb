package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The process drill's result: which counts are invariants, and the side-by-side table. */
class ProcessDrillResultTest {

    private static ProcessDrillResult result(String mode, long chargedTwice, long walletNotFound) {
        return result(mode, chargedTwice, walletNotFound, -1);
    }

    private static ProcessDrillResult result(String mode, long chargedTwice, long walletNotFound, long copiesOff) {
        return new ProcessDrillResult(Scenario.REGION_DOWN, mode, "cn", 40, 100, 120, 120, 55, 3, 900, 300,
                                      chargedTwice, 0, 0, 0, walletNotFound, copiesOff,
                                      mode.equals("unitas") ? 1_500 : -1, mode.equals("unitas") ? 210 : -1,
                                      List.of());
    }

    @Test
    void aWalletNotFoundAfterADeposit_breaksTheInvariants_asAKeyChargedTwiceDoes() {
        assertThat(result("unitas", 0, 0).invariantsHold()).isTrue();
        assertThat(result("naive", 0, 1).invariantsHold()).isFalse();
        assertThat(result("naive", 1, 0).invariantsHold()).isFalse();
        assertThat(result("unitas", 0, 0, 0).invariantsHold()).as("copies caught up").isTrue();
        assertThat(result("unitas", 0, 0, 2).invariantsHold()).as("copies still off their home").isFalse();
    }

    @Test
    void theTable_showsBothSidesOnTheSameColumns_withOkInFaultOverEveryUser_andUnitasFailoverAndRpo() {
        String table = ProcessDrillResult.sideBySide(List.of(result("unitas", 0, 0), result("naive", 2, 7)));

        List<String> lines = table.lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("scenario").contains("ok in fault", "failover", "rpo", "charged twice",
                                                                    "wallet not found");
        assertThat(lines.get(1).split(" +")).containsExactly("region-down", "unitas", "160", "40", "of", "100", "55",
                                                             "3", "1.5", "s", "210", "ms", "900", "300", "0", "0", "0", "0", "0", "n/a",
                                                             "hold");
        assertThat(lines.get(2).split(" +")).containsExactly("region-down", "naive", "160", "40", "of", "100", "55",
                                                             "3", "n/a", "n/a", "900", "300", "2", "0", "7", "0", "0", "n/a",
                                                             "BROKEN");
    }
}
