package io.unitas.playground;

import java.util.List;

/**
 * What a {@link ProcessDrill} counted: requests by phase and by whose they were (the faulted region's users or the
 * others'), and the invariants, checked in every region's database once the region is back.
 *
 * @param scenario             the fault
 * @param faulted              the region it hit
 * @param faultedServed        the faulted region's users' requests answered (2xx, or 404 for a wallet not there yet)
 *                             while the fault lasted
 * @param faultedTotal         their requests while it lasted
 * @param othersServed         the other users' requests answered while it lasted
 * @param othersTotal          their requests while it lasted
 * @param depositsAcknowledged deposits answered 201 over the whole drill
 * @param chargedTwice         deposit keys the ledgers hold more than once (must be 0)
 * @param acknowledgedLost     keys answered 201 that no ledger holds (must be 0)
 * @param foreignAnswers       answers naming another user than the one asking (must be 0)
 * @param balanceMismatches    wallets whose balance is not the sum of their ledger (must be 0)
 * @param notes                what the drill saw on the way (each fault and recovery, with its time)
 */
public record ProcessDrillResult(Scenario scenario, String faulted, long faultedServed, long faultedTotal,
                                 long othersServed, long othersTotal, long depositsAcknowledged, long chargedTwice,
                                 long acknowledgedLost, long foreignAnswers, long balanceMismatches,
                                 List<String> notes) {

    /** Whether every invariant held. */
    public boolean invariantsHold() {
        return chargedTwice == 0 && acknowledgedLost == 0 && foreignAnswers == 0 && balanceMismatches == 0;
    }

    /** The result as a few lines for a terminal. */
    public String table() {
        return String.format("%s on processes (%s faulted)%n"
                             + "  served during the fault: %s's users %d/%d, the others %d/%d%n"
                             + "  deposits acknowledged %d; charged twice %d; acknowledged but lost %d; another"
                             + " user's answer %d; balance != ledger %d -> invariants %s%n",
                             scenario.id(), faulted, faulted, faultedServed, faultedTotal, othersServed, othersTotal,
                             depositsAcknowledged, chargedTwice, acknowledgedLost, foreignAnswers, balanceMismatches,
                             invariantsHold() ? "hold" : "BROKEN");
    }
}
