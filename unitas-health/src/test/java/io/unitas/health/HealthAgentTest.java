package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.Region;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.ProbeResult;
import io.unitas.core.health.UnitLag;
import io.unitas.testkit.Ports;

/** The agent over TCP checks of a listening and a closed port: calculated checks, inversion, gates, changes. */
class HealthAgentTest {

    private static ServerSocket open;
    private static int closed;

    @BeforeAll
    static void listen() throws IOException {
        open = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        closed = Ports.free();
    }

    @AfterAll
    static void close() throws IOException {
        open.close();
    }

    private static HealthAgent agent(String checks) {
        String yaml = ("region: eu\ndefaults: {interval: 100ms, timeout: 500ms}\nchecks:\n" + checks)
                .replace("OPEN", "127.0.0.1:" + open.getLocalPort()).replace("CLOSED", "127.0.0.1:" + closed);
        return HealthAgent.start(HealthConfig.parse("health.yaml", yaml), Clock.systemUTC());
    }

    private static HealthReport settled(HealthAgent agent) {
        return Eventually.within(Duration.ofSeconds(10),
                r -> r.checks().values().stream().noneMatch(c -> c.reason().equals("no result yet")),
                agent::current);
    }

    @ParameterizedTest(name = "{0} over [open, closed] is up: {1}")
    @CsvSource({"all, false", "any, true"})
    void calculatedChecksReadTheirChildren(String kind, boolean up) {
        try (HealthAgent agent = agent("""
                  - {name: a, kind: tcp, target: 'OPEN', gate: none}
                  - {name: b, kind: tcp, target: 'CLOSED', gate: none}
                  - {name: ab, kind: %s, of: [a, b]}
                """.formatted(kind))) {
            HealthReport report = settled(agent);

            assertThat(report.checks().get("ab").up()).isEqualTo(up);
            assertThat(report.healthy()).isEqualTo(up);
        }
    }

    @Test
    void aFailingCalculatedCheckNamesItsFailingChildInTheRegionsReasons() {
        try (HealthAgent agent = agent("""
                  - {name: a, kind: tcp, target: 'OPEN', gate: none}
                  - {name: b, kind: tcp, target: 'CLOSED', gate: none}
                  - {name: both, kind: at-least, k: 2, of: [a, b]}
                """)) {
            assertThat(settled(agent).reasons()).singleElement().asString().matches(
                    "both: 1 of 2 up \\(expected: at least 2\\); b: cannot connect to 127\\.0\\.0\\.1:\\d+: "
                    + "connection refused");
        }
    }

    @Test
    void anInvertedCheckIsUpWhenItsProbeFails() {
        try (HealthAgent agent = agent("""
                  - {name: maintenance-off, kind: tcp, target: 'CLOSED', inverted: true}
                  - {name: not-down, kind: tcp, target: 'OPEN', inverted: true, gate: writable}
                """)) {
            HealthReport report = settled(agent);

            assertThat(report.healthy()).isTrue();
            assertThat(report.health().writable()).isFalse();
            assertThat(report.reasons()).containsExactly("not-down: inverted: the check passes");
        }
    }

    @Test
    void subscribersGetTheCurrentReportThenEachChangeWithAGrowingSequence() throws IOException {
        ServerSocket flapping = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        int port = flapping.getLocalPort();
        List<HealthReport> seen = new CopyOnWriteArrayList<>();
        try (HealthAgent agent = agent("  - {name: svc, kind: tcp, target: '127.0.0.1:" + port + "'}\n")) {
            agent.subscribe(seen::add);
            Eventually.within(Duration.ofSeconds(10), s -> s.stream().anyMatch(HealthReport::healthy), () -> seen);
            flapping.close();
            Eventually.within(Duration.ofSeconds(10), s -> !s.get(s.size() - 1).healthy(), () -> seen);

            // The first report is whatever was current at subscription: "no result yet", or already the first result.
            assertThat(seen).extracting(HealthReport::healthy).containsSubsequence(true, false);
            assertThat(seen).extracting(HealthReport::sequence).isSorted().doesNotHaveDuplicates();
            assertThat(seen.get(seen.size() - 1).reasons()).singleElement().asString()
                    .startsWith("svc: cannot connect to 127.0.0.1:" + port);
        }
    }

    @Test
    void everyReportCarriesTheSourcesPerUnitLag_andAFailingSourceLeavesItUnknown() {
        UnitLag caughtUp = new UnitLag("u-de", Region.of("cn"), 0, java.time.Instant.parse("2026-11-30T14:00:00Z"));
        List<List<UnitLag>> answers = new CopyOnWriteArrayList<>(List.of(List.of(caughtUp)));
        UnitLagSource source = () -> {
            if (answers.isEmpty()) {
                throw new IllegalStateException("store unavailable");
            }
            return answers.get(0);
        };
        String yaml = "region: eu\ndefaults: {interval: 100ms, timeout: 500ms}\nchecks:\n"
                      + "  - {name: a, kind: tcp, target: '127.0.0.1:" + open.getLocalPort() + "'}\n";
        DefaultHealthAgent agent = new DefaultHealthAgent(HealthConfig.parse("health.yaml", yaml), Clock.systemUTC(),
                                                          source);
        List<HealthReport> published = new CopyOnWriteArrayList<>();
        try (agent) {
            agent.subscribe(published::add);
            agent.start();

            assertThat(agent.current().unitLags()).containsExactly(caughtUp);
            HealthReport changed = Eventually.within(Duration.ofSeconds(10), r -> r != null,
                    () -> published.size() > 1 ? published.get(published.size() - 1) : null);
            assertThat(changed.unitLags()).containsExactly(caughtUp);

            HealthMetrics metrics = new HealthMetrics(agent);
            assertThat(metrics.scrape(agent.current()))
                    .contains("unitas_unit_replication_lag_seconds{region=\"eu\",to=\"cn\",unit=\"u-de\"} 0.0");

            answers.clear();
            assertThat(agent.current().unitLags()).isEmpty();
            assertThat(metrics.scrape(agent.current()))
                    .contains("unitas_unit_replication_lag_seconds{region=\"eu\",to=\"cn\",unit=\"u-de\"} NaN");
        }
    }

    @Test
    void aProbeThatThrowsAnError_isADownResult_andTheCheckIsProbedOn() {
        // a scheduled task that throws is never run again: the check would keep its last state for ever
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        Probe once = timeout -> {
            if (runs.incrementAndGet() == 1) {
                throw new StackOverflowError("a deep driver");
            }
            return ProbeResult.up(Duration.ofMillis(1), "fine", -1, java.util.Map.of());
        };
        String yaml = "region: eu\ndefaults: {interval: 50ms, timeout: 500ms}\nchecks:\n"
                      + "  - {name: a, kind: tcp, target: '127.0.0.1:" + open.getLocalPort() + "'}\n";
        List<ProbeResult> seen = new CopyOnWriteArrayList<>();
        try (DefaultHealthAgent agent = new DefaultHealthAgent(HealthConfig.parse("health.yaml", yaml),
                                                               Clock.systemUTC(), UnitLagSource.NONE, check -> once)) {
            agent.observeResults((check, result) -> seen.add(result));
            agent.start();

            assertThat(Eventually.within(Duration.ofSeconds(10), HealthReport::healthy, agent::current).healthy())
                    .as("healthy by the probes after the one that threw").isTrue();
            assertThat(seen.get(0).up()).isFalse();
            assertThat(seen.get(0).reason()).isEqualTo("probe failed: a deep driver");
            assertThat(runs).hasValueGreaterThan(2);
        }
    }

    @Test
    void aListenerThatThrowsAnError_endsNoLoop_theChecksAreProbedOn() {
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        Probe up = timeout -> {
            runs.incrementAndGet();
            return ProbeResult.up(Duration.ofMillis(1), "fine", -1, java.util.Map.of());
        };
        java.util.concurrent.atomic.AtomicInteger runsAtError = new java.util.concurrent.atomic.AtomicInteger(-1);
        String yaml = "region: eu\ndefaults: {interval: 50ms, timeout: 500ms}\nchecks:\n"
                      + "  - {name: a, kind: tcp, target: '127.0.0.1:" + open.getLocalPort() + "'}\n";
        try (DefaultHealthAgent agent = new DefaultHealthAgent(HealthConfig.parse("health.yaml", yaml),
                                                               Clock.systemUTC(), UnitLagSource.NONE, check -> up)) {
            Thread test = Thread.currentThread(); // subscribe hands the current report over at once, on this thread
            agent.subscribe(report -> {
                if (Thread.currentThread() != test && runsAtError.compareAndSet(-1, runs.get())) {
                    throw new AssertionError("a listener's bug");
                }
            });
            agent.start();

            int then = Eventually.within(Duration.ofSeconds(10), n -> n >= 0, runsAtError::get);
            assertThat(then).as("the listener threw").isNotNegative();
            assertThat(Eventually.within(Duration.ofSeconds(10), n -> n > then + 5, runs::get))
                    .as("probes run after the listener's error").isGreaterThan(then + 5);
        }
    }
}
