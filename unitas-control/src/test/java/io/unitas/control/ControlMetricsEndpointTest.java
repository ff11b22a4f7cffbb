package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.testkit.MutableClock;

/**
 * {@code GET /metrics}, scraped over HTTP as Prometheus scrapes it: every sample line well-formed and announced by
 * its {@code # HELP} and {@code # TYPE}, and the control plane's own state in it: watchers, events written, commits
 * and their latency, leader state, audit and store counters.
 */
class ControlMetricsEndpointTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    /** {@code name{labels} value}, the text format 0.0.4's sample line (no timestamps: unitas writes none). */
    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\.)*\",?)*})? "
            + "(-?[0-9.eE+-]+|NaN|\\+Inf|-Inf)");

    @TempDir
    Path dir;

    @Test
    void aScrape_isPrometheusText_withWatchersCommitsLeaderAuditAndStore() throws Exception {
        MutableClock clock = new MutableClock(T0);
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                                                 .clock(clock).start()) {
            RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
            Fixtures.seed(admin, T0, 50);
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<java.io.InputStream> watch = http.send(
                    HttpRequest.newBuilder(server.uri().resolve("/api/v1/watch"))
                               .header("authorization", "Bearer " + Fixtures.VIEWER.secret()).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(watch.statusCode()).isEqualTo(200);
            byte[] first = watch.body().readNBytes(4); // the first event was written out
            assertThat(first).hasSize(4);

            Map<String, Double> samples = new HashMap<>();
            Fixtures.await("the open watch and its first event in the scrape", Duration.ofSeconds(5), () -> {
                samples.clear();
                samples.putAll(scrapeUnchecked(http, server.uri()));
                return samples.getOrDefault("unitas_control_watchers", 0.0) == 1.0
                       && samples.getOrDefault("unitas_control_watch_events_written_total", 0.0) >= 1.0;
            });

            assertThat(samples.get("unitas_control_leader")).as("an embedded store's replica leads").isEqualTo(1.0);
            assertThat(samples.get("unitas_control_revision")).isGreaterThanOrEqualTo(5.0);
            assertThat(samples.get("unitas_control_commits_total{result=\"landed\"}")).isGreaterThanOrEqualTo(5.0);
            assertThat(samples.get("unitas_control_commit_seconds_count"))
                    .isEqualTo(samples.get("unitas_control_commits_total{result=\"landed\"}")
                               + samples.getOrDefault("unitas_control_commits_total{result=\"lost-race\"}", 0.0));
            assertThat(samples.get("unitas_control_commit_seconds_bucket{le=\"+Inf\"}"))
                    .isEqualTo(samples.get("unitas_control_commit_seconds_count"));
            assertThat(samples.get("unitas_control_commit_seconds_sum")).isPositive();
            int audited = admin.get("/api/v1/audit?after=" + 0 + "&limit=" + 1000).json().path("entries").size();
            assertThat(samples.get("unitas_control_audit_entries_total")).as("as many as the audit log holds")
                    .isEqualTo(audited);
            assertThat(samples.get("unitas_control_audit_failures_total")).isEqualTo(0.0);
            assertThat(samples.get("unitas_control_watch_drops_total")).isEqualTo(0.0);
            assertThat(samples).containsKeys("unitas_control_store_write_failures_total",
                                             "unitas_control_store_compaction_failures_total",
                                             "unitas_control_audit_segments_deleted_total");

            admin.put("/api/v1/topology", "{\"regions\": 1}", admin.get("/api/v1/state").revision());
            assertThat(scrape(http, server.uri()).get("unitas_control_audit_entries_total"))
                    .as("a refusal is audited too").isEqualTo(audited + 1.0);
            watch.body().close();
        }
    }

    @Test
    void aScrape_needsAToken() throws Exception {
        try (ControlServer server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir))
                                                 .start()) {
            HttpResponse<String> res = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(server.uri().resolve("/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).isEqualTo(401);
        }
    }

    private static Map<String, Double> scrapeUnchecked(HttpClient http, URI base) {
        try {
            return scrape(http, base);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One scrape, checked line by line against the text format, as {@code name{labels}} → value. */
    static Map<String, Double> scrape(HttpClient http, URI base) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(base.resolve("/metrics"))
                                                        .header("authorization", "Bearer " + Fixtures.VIEWER.secret())
                                                        .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(res.body()).isEqualTo(200);
        assertThat(res.headers().firstValue("content-type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
        Map<String, Double> samples = new HashMap<>();
        Set<String> typed = new HashSet<>();
        Set<String> helped = new HashSet<>();
        List<String> lines = res.body().lines().toList();
        for (String line : lines) {
            if (line.startsWith("# HELP ")) {
                helped.add(line.split(" ")[2]);
            } else if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                assertThat(parts).as(line).hasSize(4);
                assertThat(parts[3]).as(line).isIn("counter", "gauge", "histogram");
                assertThat(typed.add(parts[2])).as("one TYPE per family: " + line).isTrue();
            } else {
                Matcher m = SAMPLE.matcher(line);
                assertThat(m.matches()).as("a sample line: '" + line + "'").isTrue();
                String family = m.group(1).replaceAll("_(bucket|sum|count)$", "");
                assertThat(typed).as("TYPE before " + line).containsAnyOf(m.group(1), family);
                assertThat(helped).as("HELP before " + line).containsAnyOf(m.group(1), family);
                samples.put(m.group(1) + (m.group(2) == null || m.group(2).equals("{}") ? "" : m.group(2)),
                            Double.parseDouble(m.group(3).replace("+Inf", "Infinity")));
            }
        }
        return samples;
    }
}
