package io.unitas.control;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The control plane's own meters, served at {@code GET /metrics} in Prometheus's text format (0.0.4): counters with
 * labels, values read at each scrape (gauges, and counts kept by their owners), the commit latency histogram, and
 * the counters the store and its audit log register on {@link #meters()}. Kept here without a metrics library's
 * registry and exposition, whose versions the applications that embed the control plane in their tests (the Spring
 * starter's) would otherwise have to agree on; the store's counters use Micrometer's API, which Armeria brings.
 */
final class ControlMetrics {

    /** The commit latency's bucket bounds, in seconds: an fsync on a disk to a consensus round on etcd. */
    private static final double[] COMMIT_BOUNDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
                                                   5};

    private final Map<String, String> help = new ConcurrentHashMap<>();
    /** By counter name, then by its rendered labels ({@code {a="x",b="y"}}), sorted for a stable scrape. */
    private final Map<String, Map<String, LongAdder>> counters = new ConcurrentSkipListMap<>();
    /** Values read at each scrape, by name: their type ({@code gauge} or {@code counter}) and where to read. */
    private final Map<String, Read> reads = new ConcurrentSkipListMap<>();
    private final Histogram commits = new Histogram(COMMIT_BOUNDS);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private boolean commitHistogram = true;

    private record Read(String type, DoubleSupplier value) {}

    /** Non-cumulative bucket counts; rendered cumulative as the format wants. */
    private static final class Histogram {
        final double[] bounds;
        final AtomicLongArray counts;
        final DoubleAdder sum = new DoubleAdder();

        Histogram(double[] bounds) {
            this.bounds = bounds;
            this.counts = new AtomicLongArray(bounds.length + 1);
        }

        void observe(double seconds) {
            int i = 0;
            while (i < bounds.length && seconds > bounds[i]) {
                i++;
            }
            counts.incrementAndGet(i);
            sum.add(seconds);
        }
    }

    /** Where the store and the audit log register their counters, so that a scrape shows them. */
    MeterRegistry meters() {
        return meters;
    }

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

    /** A value that goes up and down, read at each scrape. */
    void gauge(String name, String description, DoubleSupplier value) {
        help.put(name, description);
        reads.put(name, new Read("gauge", value));
    }

    /** A count its owner keeps (only ever growing), read at each scrape; {@code name} ends in {@code _total}. */
    void count(String name, String description, DoubleSupplier value) {
        help.put(name, description);
        reads.put(name, new Read("counter", value));
    }

    /** One commit's time, from the attempt to the store's answer, landed or not. */
    void commitTook(long nanos) {
        commits.observe(nanos / 1e9);
    }

    /** Leaves out the commit histogram, for a process that commits nothing (a relay). */
    ControlMetrics withoutCommits() {
        commitHistogram = false;
        return this;
    }

    /** Every meter, in Prometheus's text format, families sorted by name. */
    String scrape() {
        Map<String, StringBuilder> families = new TreeMap<>();
        counters.forEach((name, series) -> {
            StringBuilder out = family(families, name, help.get(name), "counter");
            series.forEach((labels, count) -> out.append(name).append(labels).append(' ')
                                                 .append((double) count.sum()).append('\n'));
        });
        reads.forEach((name, read) -> family(families, name, help.get(name), read.type())
                .append(name).append(' ').append(number(read.value().getAsDouble())).append('\n'));
        for (Meter meter : meters.getMeters()) {
            String name = meter.getId().getName().replace('.', '_') + "_total";
            double value = meter instanceof Counter c ? c.count()
                    : meter instanceof FunctionCounter f ? f.count() : Double.NaN;
            if (!Double.isNaN(value)) {
                family(families, name, meter.getId().getDescription(), "counter")
                        .append(name).append(' ').append(number(value)).append('\n');
            }
        }
        if (!commitHistogram) {
            StringBuilder out = new StringBuilder();
            families.values().forEach(out::append);
            return out.toString();
        }
        StringBuilder h = family(families, "unitas_control_commit_seconds",
                                 "time from a commit's start to the store's answer (durable, or lost to a race)",
                                 "histogram");
        long cumulative = 0;
        for (int i = 0; i <= commits.bounds.length; i++) {
            cumulative += commits.counts.get(i);
            h.append("unitas_control_commit_seconds_bucket{le=\"")
             .append(i < commits.bounds.length ? number(commits.bounds[i]) : "+Inf").append("\"} ")
             .append((double) cumulative).append('\n');
        }
        h.append("unitas_control_commit_seconds_sum ").append(number(commits.sum.sum())).append('\n')
         .append("unitas_control_commit_seconds_count ").append((double) cumulative).append('\n');
        StringBuilder out = new StringBuilder();
        families.values().forEach(out::append);
        return out.toString();
    }

    private static StringBuilder family(Map<String, StringBuilder> families, String name, String description,
                                        String type) {
        return families.computeIfAbsent(name, n -> new StringBuilder()
                .append("# HELP ").append(n).append(' ').append(escapeHelp(description)).append('\n')
                .append("# TYPE ").append(n).append(' ').append(type).append('\n'));
    }

    private static String number(double value) {
        return Double.isInfinite(value) ? (value > 0 ? "+Inf" : "-Inf") : Double.toString(value);
    }

    private static String escapeHelp(String value) {
        return value == null ? "" : value.replace("\\", "\\\\").replace("\n", "\\n");
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
