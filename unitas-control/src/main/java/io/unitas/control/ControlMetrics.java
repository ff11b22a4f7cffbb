package io.unitas.control;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The control plane's own counters, served at {@code GET /metrics} in Prometheus's text format (0.0.4). They are few
 * and rare (a report at most a few times a second), so they are kept here without a metrics library, whose version
 * the applications that embed the control plane in their tests (the Spring starter's) would otherwise have to agree
 * on.
 */
final class ControlMetrics {

    private final Map<String, String> help = new ConcurrentHashMap<>();
    /** By counter name, then by its rendered labels ({@code {a="x",b="y"}}), sorted for a stable scrape. */
    private final Map<String, Map<String, LongAdder>> counters = new ConcurrentSkipListMap<>();

    /** Adds one to the counter {@code name} with the labels {@code pairs} (name, value, name, value...). */
    void increment(String name, String description, String... pairs) {
        help.putIfAbsent(name, description);
        TreeMap<String, String> labels = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            labels.put(pairs[i], pairs[i + 1]);
        }
        StringBuilder rendered = new StringBuilder("{");
        labels.forEach((k, v) -> rendered.append(rendered.length() > 1 ? "," : "").append(k).append("=\"")
                                         .append(escape(v)).append('"'));
        rendered.append('}');
        counters.computeIfAbsent(name, n -> new ConcurrentSkipListMap<>())
                .computeIfAbsent(rendered.toString(), l -> new LongAdder()).increment();
    }

    /** Every counter, in Prometheus's text format. */
    String scrape() {
        StringBuilder out = new StringBuilder();
        counters.forEach((name, series) -> {
            out.append("# HELP ").append(name).append(' ').append(help.get(name)).append('\n')
               .append("# TYPE ").append(name).append(" counter\n");
            series.forEach((labels, count) -> out.append(name).append(labels).append(' ')
                                                 .append((double) count.sum()).append('\n'));
        });
        return out.toString();
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
