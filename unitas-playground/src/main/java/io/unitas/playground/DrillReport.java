package io.unitas.playground;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * The drills' report: one self-contained HTML page (inline SVG, no scripts) with, per drill, a timeline of
 * requests per second by serving region and of errors, with the fault and recovery marked, and the invariant
 * table. The page is well-formed XML as well, so that a test (or a script) can read the numbers back.
 */
public final class DrillReport {

    private static final String[] COLORS = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22"};
    private static final String ERROR_COLOR = "#d62728";
    private static final int WIDTH = 720;
    private static final int HEIGHT = 220;
    private static final int LEFT = 48;
    private static final int BOTTOM = 28;

    private DrillReport() {}

    /** The whole page for {@code results}. */
    public static String html(List<DrillResult> results) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>unitas drills</title>\n")
         .append("<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}")
         .append("td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,td:nth-child(2),")
         .append("th{text-align:left}.BROKEN{color:#d62728;font-weight:bold}.hold{color:#2ca02c;font-weight:bold}")
         .append("figure{display:inline-block;margin:1em 1em 1em 0}figcaption{font-weight:bold}</style>")
         .append("</head><body>\n<h1>unitas drills</h1>\n<h2>Invariants</h2>\n<table><tr>");
        DrillTable.COLUMNS.forEach(c -> h.append("<th>").append(escape(c)).append("</th>"));
        h.append("</tr>\n");
        for (List<String> row : DrillTable.rows(results)) {
            h.append("<tr>");
            for (int c = 0; c < row.size(); c++) {
                String cell = escape(row.get(c));
                h.append(c == row.size() - 1 ? "<td class=\"" + cell + "\">" : "<td>").append(cell).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</table>\n<p>Invariants: acknowledged registrations later answered \"account not found\", ")
         .append("idempotency keys with more than one order, acknowledged cart items lost — each must be 0. ")
         .append("Failover: from the fault to the first success of a faulted-region user served by another ")
         .append("region. Ok in fault: successful requests of the visits due between fault and recovery, the same ")
         .append("visits in either mode (faulted users ok: of the faulted region's users). Writes back: from the fault to the first successful checkout of a ")
         .append("faulted-region user. RPO: the faulted unit's lag when the control plane promoted it (0: a switchover drained it).")
         .append(" Wrong-region calls (with the example service pair): its calls served outside the region their unit ")
         .append("was routed to, of those carrying a unit — must be 0.")
         .append("</p>\n<h2>Timelines</h2>\n");
        results.forEach(r -> h.append(chart(r)));
        return h.append("</body></html>\n").toString();
    }

    /** One drill's timeline as an inline SVG figure. */
    static String chart(DrillResult r) {
        List<DrillResult.Second> t = r.timeline();
        TreeSet<String> regions = new TreeSet<>();
        long max = 1;
        for (DrillResult.Second s : t) {
            regions.addAll(s.servedBy().keySet());
            max = Math.max(max, s.errors());
            for (long v : s.servedBy().values()) {
                max = Math.max(max, v);
            }
        }
        regions.remove("");
        double seconds = Math.max(1, t.size() - 1);
        double plotW = WIDTH - LEFT - 10;
        double plotH = HEIGHT - BOTTOM - 10;
        final long top = max;
        StringBuilder s = new StringBuilder();
        s.append("<figure data-scenario=\"").append(escape(r.scenario().id())).append("\" data-mode=\"")
         .append(r.mode()).append("\"><figcaption>").append(escape(r.scenario().id())).append(" — ").append(r.mode())
         .append("</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH)
         .append("\" height=\"").append(HEIGHT + 20).append("\" font-size=\"11\">\n");
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%.0f\" stroke=\"#888\"/>%n", LEFT, LEFT,
                               10 + plotH));
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#888\"/>%n", LEFT,
                               10 + plotH, LEFT + plotW, 10 + plotH));
        s.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"16\">%d/s</text><text x=\"4\" y=\"%.0f\">0</text>%n", top,
                               10 + plotH));
        for (long sec = 0; sec <= seconds; sec += Math.max(1, (long) seconds / 10)) {
            s.append(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%ds</text>%n",
                                   LEFT + plotW * sec / seconds, HEIGHT - 6.0, sec));
        }
        mark(s, "fault", r.faultAtMillis() / 1000.0, seconds, plotW, plotH);
        mark(s, "recovery", r.recoveryAtMillis() / 1000.0, seconds, plotW, plotH);
        List<String> legend = new ArrayList<>();
        int i = 0;
        for (String region : regions) {
            String color = COLORS[i++ % COLORS.length];
            s.append(polyline(t, sec -> sec.servedBy().getOrDefault(region, 0L), top, seconds, plotW, plotH, color,
                              "served by " + region));
            legend.add("<tspan fill=\"" + color + "\">■ served by " + escape(region) + "</tspan>");
        }
        s.append(polyline(t, DrillResult.Second::errors, top, seconds, plotW, plotH, ERROR_COLOR, "errors"));
        legend.add("<tspan fill=\"" + ERROR_COLOR + "\">■ errors (5xx, no answer)</tspan>");
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT, HEIGHT + 14, String.join("  ", legend)));
        return s.append("</svg></figure>\n").toString();
    }

    private static String polyline(List<DrillResult.Second> t, ToLongFunction<DrillResult.Second> value, long top,
                                   double seconds, double plotW, double plotH, String color, String series) {
        StringBuilder points = new StringBuilder();
        for (DrillResult.Second sec : t) {
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + plotW * sec.second() / seconds,
                                        10 + plotH - plotH * value.applyAsLong(sec) / top));
        }
        return "<polyline data-series=\"" + escape(series) + "\" fill=\"none\" stroke-width=\"2\" stroke=\"" + color
               + "\" points=\"" + points.toString().trim() + "\"/>\n";
    }

    private static void mark(StringBuilder s, String label, double atSeconds, double seconds, double plotW,
                             double plotH) {
        if (atSeconds < 0) {
            return;
        }
        double x = LEFT + plotW * atSeconds / seconds;
        s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#444\" "
                               + "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"20\">%s</text>%n", x, x,
                               10 + plotH, x + 3, label));
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
