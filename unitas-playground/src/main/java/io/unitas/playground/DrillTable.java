package io.unitas.playground;

import java.util.List;
import java.util.Locale;

/** The invariant table of one or more drills, as the terminal and the HTML report show it. */
public final class DrillTable {

    /** The column titles. */
    static final List<String> COLUMNS = List.of("scenario", "mode", "account not found", "uncompensated duplicates",
                                                "lost cart items", "sessions lost", "failed in fault",
                                                "failed after", "ok in fault", "faulted users ok", "writes back",
                                                "failover", "rpo", "duplicates detected", "compensated",
                                                "conflicts", "requests", "wrong-region calls", "invariants");

    private DrillTable() {}

    /** One row of cells per result, in {@link #COLUMNS} order. */
    static List<List<String>> rows(List<DrillResult> results) {
        return results.stream().map(r -> List.of(
                r.scenario().id(), r.mode(), Long.toString(r.accountNotFound()), Long.toString(r.duplicateOrders()),
                Long.toString(r.lostCartItems()), Long.toString(r.sessionsLost()), Long.toString(r.failedInFault()),
                Long.toString(r.window().failedAfter()), Long.toString(r.window().served()), Long.toString(r.window().faultedServed()), writesBack(r),
                failover(r), rpo(r), Long.toString(r.reconciled().duplicatesDetected()),
                Long.toString(r.reconciled().compensated()), Long.toString(r.reconciled().conflicts()),
                Long.toString(r.requests()), wrongRegion(r), r.holds() ? "hold" : "BROKEN")).toList();
    }

    /** The example's calls served outside their unit's region, of those with a unit; n/a when it did not run. */
    static String wrongRegion(DrillResult r) {
        ExampleCalls e = r.example();
        return e.ran() ? e.wrongRegion() + " of " + e.crossUnit() : "n/a";
    }

    static String failover(DrillResult r) {
        if (!r.scenario().movesTraffic()) {
            return "n/a";
        }
        return r.failoverMillis() < 0 ? "never" : String.format(Locale.ROOT, "%.1f s", r.failoverMillis() / 1000.0);
    }

    static String writesBack(DrillResult r) {
        if (!r.scenario().movesTraffic()) {
            return "n/a";
        }
        long ms = r.window().writesBackMillis();
        return ms < 0 ? "never" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    static String rpo(DrillResult r) {
        long ms = r.window().rpoMillis();
        return ms < 0 ? "n/a" : ms + " ms";
    }

    /** A fixed-width text table with a header line. */
    public static String of(List<DrillResult> results) {
        List<List<String>> rows = rows(results);
        int[] width = new int[COLUMNS.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = COLUMNS.get(c).length();
            for (List<String> row : rows) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, COLUMNS, width);
        rows.forEach(row -> line(out, row, width));
        return out.toString();
    }

    private static void line(StringBuilder out, List<String> cells, int[] width) {
        for (int c = 0; c < cells.size(); c++) {
            String cell = cells.get(c);
            boolean right = c >= 2 && c < COLUMNS.size() - 1;
            out.append(c == 0 ? "" : "  ")
               .append(right ? " ".repeat(width[c] - cell.length()) + cell
                             : cell + " ".repeat(width[c] - cell.length()));
        }
        out.append(System.lineSeparator());
    }
}
