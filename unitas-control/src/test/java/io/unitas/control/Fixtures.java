package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Shared test data and waiting: a three-region topology, unit rules, tokens of every role. */
final class Fixtures {

    static final String TOPOLOGY = """
            {"regions":[{"id":"cn","capacity":1000},{"id":"eu","capacity":500},{"id":"us","capacity":1000}],
             "center":"cn"}""";

    static final String RULES = """
            {"units":[{"id":"u-sh","region":"cn","load":100},{"id":"u-bj","region":"cn","load":100},
                      {"id":"u-de","region":"eu","load":300},{"id":"u-ny","region":"us","load":100}],
             "key":{"sources":[{"header":"x-user-id"}],"transform":"mod 10000","missing":"reject"},
             "ranges":[{"range":"0~4999","unit":"u-sh"},{"range":"5000~6999","unit":"u-bj"},
                       {"range":"7000~8999","unit":"u-de"},{"range":"9000~9999","unit":"u-ny"}],
             "gray":{"u-sh":[{"when":{"header":"x-version","equals":"2"},"version":"2"},{"version":"1"}],
                     "u-de":[{"version":"1"}]}}""";

    static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);
    static final ControlToken OPERATOR = ControlToken.generate("ops", Role.OPERATOR);
    static final ControlToken REPORTER = ControlToken.generate("agent", Role.REPORTER);
    static final ControlToken VIEWER = ControlToken.generate("watcher", Role.VIEWER);

    private Fixtures() {}

    /** A tokens file admitting the four tokens above. */
    static Path tokensFile(Path dir) {
        try {
            Path file = dir.resolve("tokens");
            Files.writeString(file, String.join("\n", ADMIN.fileLine(), OPERATOR.fileLine(), REPORTER.fileLine(),
                                                VIEWER.fileLine()) + "\n");
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A health report body. */
    static String report(String region, long sequence, Instant observedAt, boolean healthy, long lagMs) {
        return "{\"region\":\"" + region + "\",\"sequence\":" + sequence + ",\"observed_at\":\"" + observedAt
               + "\",\"healthy\":" + healthy + ",\"writable\":" + healthy + ",\"replication_lag_ms\":" + lagMs
               + ",\"score\":" + (healthy ? 1.0 : 0.0) + ",\"reasons\":[]"
               + ",\"checks\":{\"pg-primary\":{\"up\":" + healthy + ",\"latency_ms\":3,\"reason\":\"\"}}}";
    }

    /**
     * A healthy report of {@code region} that also says how far each of {@code units}' data it ships is behind in
     * {@code to}: {@code lagMs}, measured at {@code measuredAt}.
     */
    static String reportWithUnitLag(String region, long sequence, Instant observedAt, String to, long lagMs,
                                    Instant measuredAt, String... units) {
        String base = report(region, sequence, observedAt, true, -1);
        StringBuilder lags = new StringBuilder();
        for (String unit : units) {
            lags.append(lags.length() == 0 ? "" : ",").append('"').append(unit).append("\":{\"").append(to)
                .append("\":{\"lag_ms\":").append(lagMs).append(",\"measured_at\":\"").append(measuredAt)
                .append("\"}}");
        }
        return base.substring(0, base.length() - 1) + ",\"unit_lag\":{" + lags + "}}";
    }

    /** {@code PUT /api/v1/health/{region}} of a report's JSON, raw: tests send reports the typed client would not. */
    static ControlResponse putHealth(RawClient client, String region, String json) {
        return client.send("PUT", "/api/v1/health/" + region, json, java.util.Map.of());
    }

    /** Applies the topology and the rules as admin and reports every region healthy with the given lag. */
    static void seed(RawClient admin, Instant now, long lagMs) {
        assertOk(admin.put("/api/v1/topology", TOPOLOGY, admin.get("/api/v1/state").revision()));
        assertOk(admin.put("/api/v1/rules", RULES, admin.get("/api/v1/state").revision()));
        for (String region : new String[] {"cn", "eu", "us"}) {
            assertOk(admin.send("PUT", "/api/v1/health/" + region, report(region, 1, now, true, lagMs),
                                java.util.Map.of()));
        }
    }

    /** Starts moving u-sh from cn to eu (max_lag 200 ms, deadline {@code timeout} from now); waits until it catches up. */
    static void startMovingUshToEu(RawClient client, Duration timeout) {
        ControlResponse res = client.post("/api/v1/switchovers", "{\"units\":[\"u-sh\"],\"target\":\"eu\","
                + "\"max_lag\":\"200ms\",\"deadline\":\"" + Instant.now().plus(timeout) + "\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(202);
        awaitEquals("phase", Duration.ofSeconds(20), () -> phase(client), "catching_up");
    }

    /** The phase of the current or last switchover. */
    static String phase(RawClient client) {
        return client.get("/api/v1/state").json().path("switchover").path("phase").asText();
    }

    /** Asserts that u-sh (the first unit) has {@code home} and that no fence is left. */
    static void assertUshHomeAndNoFences(RawClient client, String home) {
        com.fasterxml.jackson.databind.JsonNode state = client.get("/api/v1/state").json();
        assertThat(state.path("rules").path("units").get(0).path("region").asText()).isEqualTo(home);
        assertThat(state.path("fences").size()).isZero();
    }

    /** Asserts a 200, showing the body otherwise. */
    static void assertOk(ControlResponse res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
    }

    /** Waits (polling, bounded) until {@code condition} holds; fails with {@code what} otherwise. */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Waits until {@code value} returns {@code expected}. */
    static <T> void awaitEquals(String what, Duration timeout, Supplier<T> value, T expected) {
        await(what + " = " + expected, timeout, () -> expected.equals(value.get()));
    }
}
