package io.unitas.dns;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import io.unitas.control.client.WatchStatus;
import io.unitas.core.Region;

/**
 * {@code unitas_dns_queries_total} by query type, rcode, answering region and client region;
 * {@code unitas_dns_no_healthy_region_answers_total} by client region (answers sent while no region was healthy);
 * truncated and dropped packets; the control plane's watch when there is one. Meters are made once per combination.
 */
final class DnsMetrics {

    /** The label of a region that is not known or not relevant (a REFUSED query has no answering region). */
    static final String NONE = "none";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ConcurrentHashMap<Key, Counter> queries = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> noHealthy = new ConcurrentHashMap<>();
    private final Counter truncated = Counter.builder("unitas_dns_truncated")
            .description("UDP answers sent truncated (TC) because they exceeded the client's payload size")
            .register(registry);
    private final Counter dropped = Counter.builder("unitas_dns_dropped")
            .description("Packets not answered: shorter than a DNS header, or responses rather than queries")
            .register(registry);

    private final Counter rateDropped = rateLimited("dropped");
    private final Counter rateSlipped = rateLimited("slipped");

    private Counter rateLimited(String action) {
        return Counter.builder("unitas_dns_rate_limited")
                .description("UDP answers past rate_limit: dropped, or slipped (sent truncated, TC, no records)")
                .tag("action", action).register(registry);
    }

    private record Key(String qtype, int rcode, String region, String client) {
    }

    void query(String qtype, int rcode, Region answering, Region client) {
        Key key = new Key(qtype, rcode, answering == null ? NONE : answering.id(), client == null ? NONE : client.id());
        queries.computeIfAbsent(key, k -> Counter.builder("unitas_dns_queries")
                .description("Queries answered, by query type, rcode, answering region and client region")
                .tags("qtype", k.qtype, "rcode", rcodeName(k.rcode), "region", k.region, "client_region", k.client)
                .register(registry)).increment();
    }

    void noHealthyRegion(Region client) {
        String id = client == null ? NONE : client.id();
        noHealthy.computeIfAbsent(id, c -> Counter.builder("unitas_dns_no_healthy_region_answers")
                .description("Answers sent while no region was healthy (the last healthy region, minimum TTL)")
                .tag("client_region", c).register(registry)).increment();
    }

    void truncated() {
        truncated.increment();
    }

    void dropped() {
        dropped.increment();
    }

    /** One answer past the rate limit: slipped (sent truncated) or dropped. */
    void rateLimited(boolean slipped) {
        (slipped ? rateSlipped : rateDropped).increment();
    }

    /** Follows the control plane's watch: connected, revision and reconnects, read at each scrape. */
    void watch(Supplier<WatchStatus> status) {
        Gauge.builder("unitas_dns_control_watch_connected", () -> {
            WatchStatus s = status.get();
            return s != null && s.connected() ? 1 : 0;
        }).description("1 while the control plane's watch is connected").register(registry);
        Gauge.builder("unitas_dns_control_watch_revision", () -> {
            WatchStatus s = status.get();
            return s == null ? -1 : s.lastRevision();
        }).description("The last control-plane revision the watch delivered").register(registry);
        FunctionCounter.builder("unitas_dns_control_watch_reconnects", status, st -> {
            WatchStatus s = st.get();
            return s == null ? 0 : s.reconnects();
        }).description("Times the watch connected again").register(registry);
    }

    /** The TCP connections: open, refused at the cap, closed idle, paused for an unread backlog, bytes held. */
    void tcp(TcpConnections c) {
        Gauge.builder("unitas_dns_tcp_connections", c, TcpConnections::connections)
             .description("TCP connections open").register(registry);
        Gauge.builder("unitas_dns_tcp_outstanding_bytes", c, TcpConnections::outstandingBytes)
             .description("Bytes TCP connections hold: queries read and not yet answered, answers not yet sent")
             .register(registry);
        FunctionCounter.builder("unitas_dns_tcp_refused", c, TcpConnections::refused)
                       .description("TCP connections closed as accepted: tcp.max_connections were open")
                       .register(registry);
        FunctionCounter.builder("unitas_dns_tcp_idle_closed", c, TcpConnections::expired)
                       .description("TCP connections closed for completing no query within tcp.idle_timeout")
                       .register(registry);
        FunctionCounter.builder("unitas_dns_tcp_paused", c, TcpConnections::paused)
                       .description("Times a TCP connection was no longer read: its client was not reading answers")
                       .register(registry);
    }

    /** Rounds of the server's background loops that failed (each logged; the loops go on). */
    void loops(LoopGuard guard) {
        FunctionCounter.builder("unitas_dns_loop_failures", guard, LoopGuard::failures)
                       .description("Rounds of a background loop that failed, each logged; the loop goes on")
                       .register(registry);
    }

    /** Keeps {@code revision} visible as {@code unitas_dns_state_revision}. */
    void revision(Supplier<Long> revision) {
        Gauge.builder("unitas_dns_state_revision", () -> revision.get())
             .description("The revision of the routing state answers are made from (-1: none yet)")
             .register(registry);
    }

    String scrape() {
        return registry.scrape();
    }

    static String rcodeName(int rcode) {
        return switch (rcode) {
            case 0 -> "NOERROR";
            case 1 -> "FORMERR";
            case 2 -> "SERVFAIL";
            case 3 -> "NXDOMAIN";
            case 4 -> "NOTIMP";
            case 5 -> "REFUSED";
            case 16 -> "BADVERS";
            default -> String.valueOf(rcode);
        };
    }
}
