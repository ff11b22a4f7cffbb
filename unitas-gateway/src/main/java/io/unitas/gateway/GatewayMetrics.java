package io.unitas.gateway;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.util.concurrent.FastThreadLocal;

import io.unitas.control.client.WatchStatus;

/**
 * The "region × user home" view: {@code unitas_gateway_requests_total} and the
 * {@code unitas_gateway_request_duration_seconds} histogram by gateway region, home region, target region, route
 * and status class, plus one access log line per request with the same fields. Meters are created once per
 * combination and found again without allocating.
 */
final class GatewayMetrics implements AutoCloseable {

    /** The label value for a home or target the gateway could not determine. */
    static final String NONE = "none";

    private final String gatewayRegion;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, ConcurrentHashMap<String, Meters>>> meters =
            new ConcurrentHashMap<>();
    /** The meters last used, by a hash of their labels; see {@link #meters}. */
    private final Meters[] recent = new Meters[64];
    private final PrintStream accessLog;
    /** The access log's timestamps; durations come measured on the gateway's ticker. */
    private final Clock clock;

    private final ScheduledExecutorService flusher;
    private volatile Supplier<WatchStatus> watchStatus;
    private volatile Reachability reachability;
    private volatile UnreachableReporter reporter;

    GatewayMetrics(String gatewayRegion, PrintStream accessLog) {
        this(gatewayRegion, accessLog, Clock.systemUTC());
    }

    /** Metrics whose access log ({@code null}: none) stamps its lines with {@code clock}'s time. */
    GatewayMetrics(String gatewayRegion, PrintStream accessLog, Clock clock) {
        this.gatewayRegion = gatewayRegion;
        this.accessLog = accessLog;
        this.clock = clock;
        this.flusher = accessLog == null ? null : Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-gateway-access-log");
            t.setDaemon(true);
            return t;
        });
        if (flusher != null) {
            flusher.scheduleWithFixedDelay(accessLog::flush, 1, 1, TimeUnit.SECONDS);
        }
    }

    /**
     * Follows the control plane's watch: {@code unitas_gateway_control_watch_connected} (1 or 0),
     * {@code _revision}, {@code _last_event_age_seconds}, {@code _reconnects_total} and
     * {@code _callback_failures_total}, read from {@code status} at each scrape; nothing when it gives null.
     */
    void watch(Supplier<WatchStatus> status) {
        this.watchStatus = status;
        String p = "unitas.gateway.control.watch.";
        Gauge.builder(p + "connected", status, s -> value(s, w -> w.connected() ? 1 : 0))
                .description("Whether the control plane's watch stream is open and its heartbeats arrive")
                .register(registry);
        Gauge.builder(p + "revision", status, s -> value(s, w -> w.lastRevision()))
                .description("The last control-plane revision the watch delivered").register(registry);
        Gauge.builder(p + "last.event.age", status,
                        s -> value(s, w -> w.lastEventAgeMillis() < 0 ? Double.NaN : w.lastEventAgeMillis() / 1e3))
                .baseUnit("seconds").description("Time since the watch last heard an event or a heartbeat")
                .register(registry);
        FunctionCounter.builder(p + "reconnects", status,
                        s -> value(s, w -> w.reconnects()))
                .description("Watch connections replaced (dropped, refused or silent for three heartbeats)")
                .register(registry);
        FunctionCounter.builder(p + "callback.failures", status,
                        s -> value(s, w -> w.callbackFailures()))
                .description("Watched states whose handling failed").register(registry);
    }

    private static double value(Supplier<WatchStatus> status,
                                ToDoubleFunction<WatchStatus> f) {
        WatchStatus s = status.get();
        return s == null ? Double.NaN : f.applyAsDouble(s);
    }

    /**
     * Publishes {@code unitas_gateway_region_unreachable} (1 or 0) by region, read from {@code r} at each scrape, and
     * keeps {@code reporter} (null when the gateway follows no control plane) for {@code /unitas/healthz}.
     */
    void reachability(Reachability r, UnreachableReporter reporter) {
        this.reachability = r;
        this.reporter = reporter;
        for (io.unitas.core.Region region : r.regions()) {
            Gauge.builder("unitas.gateway.region.unreachable", r, x -> x.unreachable(region) ? 1 : 0)
                 .description("Whether every upstream of the region tried in the last "
                              + Reachability.WINDOW.toSeconds() + " s refused the connection (or timed out)")
                 .tag("region", region.id()).register(registry);
        }
    }

    /** Counts one report of {@code region} unreachable to the control plane by {@code result}. */
    void unreachableReported(io.unitas.core.Region region, String result) {
        Counter.builder("unitas.gateway.unreachable.reports")
               .description("Reports to the control plane that a region is unreachable from here, by result")
               .tags("region", region.id(), "result", result).register(registry).increment();
    }

    /**
     * The lines for {@code /unitas/healthz}: the regions unreachable from here, and the reports' problem while there
     * is one; empty when every region is reachable.
     */
    String reachabilityHealth() {
        Reachability r = reachability;
        if (r == null) {
            return "";
        }
        java.util.List<io.unitas.core.Region> down = r.unreachable();
        StringBuilder s = new StringBuilder();
        if (!down.isEmpty()) {
            s.append("unreachable from here: ").append(down.stream().map(io.unitas.core.Region::id)
                                                          .collect(java.util.stream.Collectors.joining(", ")))
             .append(" (every upstream tried in the last ").append(Reachability.WINDOW.toSeconds())
             .append(" s refused the connection)\n");
        }
        UnreachableReporter rep = reporter;
        if (rep != null && !rep.problem().isEmpty()) {
            s.append("unreachable reports: ").append(rep.problem()).append('\n');
        }
        return s.toString();
    }

    /** The watch's line for {@code /unitas/healthz}, empty when the gateway watches no control plane. */
    String watchHealth() {
        WatchStatus s = watchStatus == null ? null : watchStatus.get();
        return s == null ? "" : "control plane watch: " + s.describe() + "\n";
    }

    /** Flushes and stops the access log. */
    @Override
    public void close() {
        if (flusher != null) {
            flusher.shutdownNow();
            accessLog.flush();
        }
    }

    /**
     * Publishes the client connections' counts: {@code unitas_gateway_client_connections} open now,
     * {@code unitas_gateway_client_connections_refused_total} over {@code limits.max_connections}, and
     * {@code unitas_gateway_client_connections_timed_out_total} by {@code reason} ({@code header_read}, {@code idle}).
     */
    void clientLimits(ClientLimits limits) {
        Gauge.builder("unitas_gateway_client_connections", limits, ClientLimits::open)
             .description("Client connections open").tag("gateway_region", gatewayRegion).register(registry);
        FunctionCounter.builder("unitas_gateway_client_connections_refused", limits, ClientLimits::refused)
                       .description("Client connections closed at once because limits.max_connections were open")
                       .tag("gateway_region", gatewayRegion).register(registry);
        FunctionCounter.builder("unitas_gateway_client_connections_timed_out", limits,
                                ClientLimits::headerReadTimeouts)
                       .description("Client connections closed for taking too long over a request head or idling")
                       .tags("gateway_region", gatewayRegion, "reason", "header_read").register(registry);
        FunctionCounter.builder("unitas_gateway_client_connections_timed_out", limits, ClientLimits::idleTimeouts)
                       .description("Client connections closed for taking too long over a request head or idling")
                       .tags("gateway_region", gatewayRegion, "reason", "idle").register(registry);
    }

    /**
     * Publishes {@code unitas_gateway_client_protocol_errors_total}: client HTTP/2 connections ended by their own
     * protocol errors (too many resets, an endless header block, a broken frame).
     */
    void connectionErrors(ConnectionErrors errors) {
        FunctionCounter.builder("unitas_gateway_client_protocol_errors", errors, ConnectionErrors::errors)
                       .description("Client HTTP/2 connections closed for their protocol errors (resets, header "
                                    + "floods, broken frames); logged one line at most every 10 s")
                       .tag("gateway_region", gatewayRegion).register(registry);
    }

    /** Publishes {@code unitas_gateway_timeout_failures_total}: expiries of timeouts that threw (each a bug). */
    void timeouts(Timeouts timeouts) {
        FunctionCounter.builder("unitas_gateway_timeout_failures", timeouts, Timeouts::failures)
                       .description("Timeout expiries that failed with an exception; the timeouts go on being checked")
                       .tag("gateway_region", gatewayRegion).register(registry);
    }

    /** The Prometheus text exposition, for the {@code /metrics} endpoint. */
    String scrape() {
        return registry.scrape();
    }

    /** Counts and times one finished request, and writes its access log line. */
    void record(String method, String path, String unit, String home, String target, String route, int status,
                long durationNanos) {
        int statusClass = Math.max(1, Math.min(5, status / 100));
        Meters m = meters(home, target, route);
        m.count(statusClass).increment();
        m.latency.record(durationNanos, TimeUnit.NANOSECONDS);
        if (accessLog != null) {
            AccessLine line = ACCESS_LINES.get();
            line.start(clock.instant()).append(" method=").append(method).append(" path=").append(path)
                .append(" status=").append(status).append(" gateway_region=").append(gatewayRegion)
                .append(" home_region=").append(home).append(" target_region=").append(target)
                .append(" route=").append(route).append(" unit=").append(unit)
                .append(" status_class=").append(statusClass).append("xx duration_us=")
                .append(durationNanos / 1000).end(accessLog);
        }
    }

    /**
     * The meters of one combination, found without allocating once made: in {@link #recent}, a direct-mapped table
     * read without a lock (a slot holds a whole {@code Meters} or none; a lost write costs one slower lookup), else
     * in the maps (whose {@code computeIfAbsent} functions capture their arguments, so allocate at every call).
     */
    private Meters meters(String home, String target, String route) {
        int h = (31 * home.hashCode() + target.hashCode()) * 31 + route.hashCode();
        int slot = (h ^ (h >>> 16)) & (recent.length - 1);
        Meters m = recent[slot];
        if (m != null && m.home.equals(home) && m.target.equals(target) && m.route.equals(route)) {
            return m;
        }
        m = meters.computeIfAbsent(home, k -> new ConcurrentHashMap<>())
                  .computeIfAbsent(target, k -> new ConcurrentHashMap<>())
                  .computeIfAbsent(route, k -> new Meters(home, target, route));
        recent[slot] = m;
        return m;
    }

    /** Each event loop's access log line, reused from one request to the next. */
    private static final FastThreadLocal<AccessLine> ACCESS_LINES = new FastThreadLocal<>() {
        @Override
        protected AccessLine initialValue() {
            return new AccessLine();
        }
    };

    /**
     * One access log line, built in a reused buffer and written to the log as UTF-8 bytes in one call, so that a
     * request's line costs no string of its own. The timestamp is {@link Instant#toString()}'s, its date and time
     * formatted once a second.
     */
    static final class AccessLine {
        private final StringBuilder text = new StringBuilder(256);
        private byte[] bytes = new byte[256];
        private long second = Long.MIN_VALUE;
        private String secondText;

        /** Starts a line with the time {@code now}, as {@code Instant.toString()} writes it. */
        AccessLine start(Instant now) {
            text.setLength(0);
            if (now.getEpochSecond() != second) {
                second = now.getEpochSecond();
                String whole = Instant.ofEpochSecond(second).toString(); // 2026-11-30T14:12:49Z
                secondText = whole.substring(0, whole.length() - 1);
            }
            text.append(secondText);
            int nanos = now.getNano();
            if (nanos != 0) { // as Instant.toString: milli-, micro- or nanoseconds, whichever shows them all
                int digits = nanos % 1_000_000 == 0 ? 3 : nanos % 1_000 == 0 ? 6 : 9;
                int value = digits == 3 ? nanos / 1_000_000 : digits == 6 ? nanos / 1_000 : nanos;
                text.append('.');
                for (int d = digits - 1, scale = pow10(d); d >= 0; d--, scale /= 10) {
                    text.append((char) ('0' + value / scale % 10));
                }
            }
            text.append('Z');
            return this;
        }

        private static int pow10(int n) {
            int p = 1;
            for (int i = 0; i < n; i++) {
                p *= 10;
            }
            return p;
        }

        AccessLine append(String s) {
            text.append(s);
            return this;
        }

        AccessLine append(long n) {
            text.append(n);
            return this;
        }

        /** The line so far. */
        String text() {
            return text.toString();
        }

        /** Ends the line and writes it to {@code out}. */
        void end(PrintStream out) {
            text.append(System.lineSeparator());
            int n = text.length();
            if (bytes.length < n) {
                bytes = new byte[2 * n];
            }
            int at = 0;
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (c >= 0x80) { // a path or name beyond ASCII: the stream encodes it
                    out.print(text);
                    return;
                }
                bytes[at++] = (byte) c;
            }
            out.write(bytes, 0, at);
        }
    }

    /** The meters of one (home, target, route) combination; counters per status class made on first use. */
    private final class Meters {
        private final String home;
        private final String target;
        private final String route;
        private final Counter[] byClass = new Counter[6];
        private final Timer latency;

        Meters(String home, String target, String route) {
            this.home = home;
            this.target = target;
            this.route = route;
            this.latency = Timer.builder("unitas_gateway_request_duration")
                                .description("Time from request to the end of the response, by region and home")
                                .tags("gateway_region", gatewayRegion, "home_region", home,
                                      "target_region", target, "route", route)
                                .publishPercentileHistogram()
                                .register(registry);
        }

        Counter count(int statusClass) {
            Counter c = byClass[statusClass];
            if (c == null) {
                c = Counter.builder("unitas_gateway_requests")
                           .description("Requests by gateway region, user home region, target region and route")
                           .tags("gateway_region", gatewayRegion, "home_region", home, "target_region", target,
                                 "route", route, "status_class", statusClass + "xx")
                           .register(registry);
                byClass[statusClass] = c;
            }
            return c;
        }
    }
}
