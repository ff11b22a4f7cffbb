package io.unitas.playground;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a {@link ProcessDrill} counted on one side (unitas or naive): requests by phase and by whose they were (the
 * faulted region's users or the others'), and the invariants, checked in every region's database once the region is
 * back. A request is one deposit, resend or read after its attempts, counted in the phase its visit was due in.
 *
 * @param scenario             the fault
 * @param mode                 {@code unitas} or {@code naive}
 * @param faulted              the region it hit
 * @param faultedServed        the faulted region's users' requests answered (2xx, or 404 for a wallet that had no
 *                             acknowledged deposit yet) of those due while the fault lasted
 * @param faultedTotal         their requests due while it lasted
 * @param othersServed         the other users' requests answered, of those due while it lasted
 * @param othersTotal          their requests due while it lasted
 * @param failedInFault        requests due while it lasted answered 5xx or not at all
 * @param failedAfter          requests due from the recovery to the end answered 5xx or not at all
 * @param requests             HTTP requests sent, retries included
 * @param depositsAcknowledged deposits answered 201 over the whole drill
 * @param chargedTwice         deposit keys the ledgers hold more than once (must be 0)
 * @param acknowledgedLost     keys answered 201 that no ledger holds (must be 0)
 * @param foreignAnswers       answers naming another user than the one asking (must be 0)
 * @param balanceMismatches    wallets whose balance is not the sum of their ledger (must be 0)
 * @param walletNotFound       reads answered 404 after a deposit of that wallet had been acknowledged (must be 0)
 * @param copiesOff            with replication: wallet copies in another region that still differed from their
 *                             home's (balance, version) a minute after the recovery (must be 0); -1 without
 * @param failoverMillis       unitas moving the faulted region's unit: from the fault to the first 2xx of one of its
 *                             users answered by another region; -1 when none was, or nothing moves the unit
 * @param rpoMillis            the RPO the move of the faulted region's unit recorded: its lag when it was promoted,
 *                             0 when a switchover drained it; -1 when it did not move
 * @param notes                what the drill saw on the way (each fault and recovery, with its time)
 */
public record ProcessDrillResult(Scenario scenario, String mode, String faulted, long faultedServed,
                                 long faultedTotal, long othersServed, long othersTotal, long failedInFault,
                                 long failedAfter, long requests, long depositsAcknowledged, long chargedTwice,
                                 long acknowledgedLost, long foreignAnswers, long balanceMismatches,
                                 long walletNotFound, long copiesOff, long failoverMillis,
                                 long rpoMillis, List<String> notes) {

    /** The side-by-side table's column titles. */
    static final List<String> COLUMNS = List.of("scenario", "mode", "ok in fault", "faulted users ok",
                                                "failed in fault", "failed after", "failover", "rpo",
                                                "requests", "deposits ok",
                                                "charged twice", "ack'd lost", "wallet not found", "other user's",
                                                "balance != ledger", "copies off", "invariants");

    /** Whether every invariant held. */
    public boolean invariantsHold() {
        return chargedTwice == 0 && acknowledgedLost == 0 && foreignAnswers == 0 && balanceMismatches == 0
               && walletNotFound == 0 && copiesOff <= 0;
    }

    /** Requests answered during the fault, every user's. */
    public long okInFault() {
        return faultedServed + othersServed;
    }

    /** The result as a few lines for a terminal. */
    public String table() {
        return String.format("%s on processes, %s (%s faulted)%n"
                             + "  served during the fault: %s's users %d/%d, the others %d/%d; failed in the fault %d,"
                             + " after it %d%n"
                             + "  deposits acknowledged %d; charged twice %d; acknowledged but lost %d; another"
                             + " user's answer %d; balance != ledger %d; wallet not found after a deposit %d;"
                             + " copies off their home %s -> invariants %s%n"
                             + "  failover (fault to a %s user's first answer from another region) %s; rpo %s%n",
                             scenario.id(), mode, faulted, faulted, faultedServed, faultedTotal, othersServed,
                             othersTotal, failedInFault, failedAfter, depositsAcknowledged, chargedTwice,
                             acknowledgedLost, foreignAnswers, balanceMismatches, walletNotFound, copies(),
                             invariantsHold() ? "hold" : "BROKEN", faulted, failover(), rpo());
    }

    /** One row per result, in {@link #COLUMNS} order. */
    List<String> row() {
        return List.of(scenario.id(), mode, Long.toString(okInFault()), faultedServed + " of " + faultedTotal,
                       Long.toString(failedInFault), Long.toString(failedAfter), failover(), rpo(),
                       Long.toString(requests),
                       Long.toString(depositsAcknowledged), Long.toString(chargedTwice),
                       Long.toString(acknowledgedLost), Long.toString(walletNotFound), Long.toString(foreignAnswers),
                       Long.toString(balanceMismatches), copies(), invariantsHold() ? "hold" : "BROKEN");
    }

    private String failover() {
        return failoverMillis < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f s", failoverMillis / 1000.0);
    }

    private String rpo() {
        return rpoMillis < 0 ? "n/a" : rpoMillis + " ms";
    }

    private String copies() {
        return copiesOff < 0 ? "n/a" : Long.toString(copiesOff);
    }

    /** The results side by side (unitas and naive on the same offered load), a fixed-width table with a header. */
    public static String sideBySide(List<ProcessDrillResult> results) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(COLUMNS);
        results.forEach(r -> rows.add(r.row()));
        int[] width = new int[COLUMNS.size()];
        rows.forEach(row -> {
            for (int c = 0; c < width.length; c++) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        });
        StringBuilder out = new StringBuilder();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.size(); c++) {
                String cell = row.get(c);
                String pad = " ".repeat(width[c] - cell.length());
                boolean right = c >= 2 && c < COLUMNS.size() - 1;
                line.append(c == 0 ? "" : "  ").append(right ? pad + cell : cell + pad);
            }
            out.append(line.toString().stripTrailing()).append(System.lineSeparator());
        }
        return out.toString();
    }
}
