package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import com.sun.net.httpserver.HttpServer;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;

import io.unitas.config.HealthReportJson;
import io.unitas.core.health.HealthReport;
import io.unitas.testkit.MariaDbServer;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.RedisPair;

/**
 * One health server for region {@code cn} over real servers, with the default interval, timeout and thresholds.
 * Each test breaks one thing the way production breaks, watches every published form, then undoes it.
 */
class HealthServerTest {

    /** The documented worst-case detection time of the defaults. */
    private static final Duration DETECTION = Duration.ofSeconds(3);
    private static final Duration RECOVERY = Duration.ofSeconds(15);

    private static PostgresCluster pg;
    private static MariaDbServer mariadb;
    private static RedisPair redis;
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final List<String> PUSHED = new CopyOnWriteArrayList<>();
    private static final List<String> PUSH_AUTH = new CopyOnWriteArrayList<>();
    private static final AtomicInteger PUSH_FAILURES_LEFT = new AtomicInteger(2);

    private static HttpServer receiver;
    private static HealthServer server;
    private static ManagedChannel channel;

    @BeforeAll
    static void start() throws IOException {
        // The servers boot in parallel: most of their start-up is waiting on disk and processes.
        CompletableFuture.allOf(CompletableFuture.runAsync(PostgresCluster::shared),
                CompletableFuture.runAsync(MariaDbServer::shared), CompletableFuture.runAsync(RedisPair::shared)).join();
        pg = PostgresCluster.shared();
        mariadb = MariaDbServer.shared();
        redis = RedisPair.shared();
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/api/v1/health/cn", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            int status = PUSH_FAILURES_LEFT.getAndDecrement() > 0 ? 500 : 204;
            if (status == 204 && "PUT".equals(exchange.getRequestMethod())) {
                PUSHED.add(new String(body, StandardCharsets.UTF_8));
                PUSH_AUTH.add(exchange.getRequestHeaders().getFirst("Authorization"));
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        receiver.start();
        Path token = Files.createTempFile("unitas-push-token", "");
        Files.writeString(token, "t0ken\n");
        token.toFile().deleteOnExit();
        String yaml = """
                region: cn
                listen: {address: 127.0.0.1, http: 0, grpc: 0}
                checks:
                  - {name: pg-primary, kind: postgres, target: '%s', role: primary, heartbeat: true}
                  - {name: pg-standby, kind: postgres, target: '%s', role: standby, max-lag: 1s}
                  - {name: mariadb, kind: mysql, target: '%s', role: primary}
                  - {name: sessions, kind: redis, target: '%s', role: replica}
                push:
                  url: http://127.0.0.1:%d/api/v1/health/cn
                  token-file: %s
                  every: 1s
                """.formatted(pg.primary().uri(), pg.standby().uri(), mariadb.uri(), redis.replica().uri(),
                              receiver.getAddress().getPort(), token);
        server = HealthServer.start(HealthConfig.parse("health.yaml", yaml), Clock.systemUTC());
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    }

    @AfterAll
    static void stop() {
        channel.shutdownNow();
        server.close();
        receiver.stop(0);
    }

    @BeforeEach
    void regionIsHealthy() {
        HttpResponse<String> ready = Eventually.within(RECOVERY, r -> r.statusCode() == 200, () -> get("/readyz"));
        assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    }

    private static HttpResponse<String> get(String path) {
        try {
            return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                                       .build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static double metric(String name, String check) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{check=\"" + check + "\",region=\"cn\"} (\\S+)$")
                .matcher(get("/metrics").body());
        assertThat(m.find()).as(name + " of " + check).isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static ServingStatus grpcCheck(String service) {
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(2, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
    }

    /** Every status the server streams for {@code service}, as it arrives. */
    private static BlockingQueue<ServingStatus> watch(String service) {
        BlockingQueue<ServingStatus> statuses = new LinkedBlockingQueue<>();
        StreamObserver<HealthCheckResponse> collect = new StreamObserver<>() {
            @Override
            public void onNext(HealthCheckResponse value) {
                statuses.add(value.getStatus());
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        };
        HealthGrpc.newStub(channel).watch(HealthCheckRequest.newBuilder().setService(service).build(), collect);
        return statuses;
    }

    @Test
    void theSeedIncident_aReadOnlyPrimaryTurnsReadyz503WithinTheDetectionTimeWhileLivezStays200() {
        pg.primary().execute("ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
        long start = System.nanoTime();
        try {
            HttpResponse<String> ready = Eventually.within(DETECTION.plusSeconds(2), r -> r.statusCode() == 503,
                                                           () -> get("/readyz"));
            Duration detected = Duration.ofNanos(System.nanoTime() - start);

            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(detected).isLessThanOrEqualTo(DETECTION);
            assertThat(ready.body()).isEqualTo("not ready: region cn\n"
                                               + "- pg-primary: read-only (transaction_read_only=on)\n");
            assertThat(get("/livez").statusCode()).isEqualTo(200);
            assertThat(get("/healthz").statusCode()).isEqualTo(503);
            assertThat(metric("unitas_check_up", "pg-primary")).isZero();
            assertThat(get("/metrics").body()).contains("unitas_region_healthy{region=\"cn\"} 0.0")
                    .contains("unitas_region_health_score{region=\"cn\"} 0.0");
            assertThat(grpcCheck("")).isEqualTo(ServingStatus.NOT_SERVING);
            assertThat(grpcCheck("pg-primary")).isEqualTo(ServingStatus.NOT_SERVING);
            assertThat(grpcCheck("mariadb")).isEqualTo(ServingStatus.SERVING);
        } finally {
            pg.primary().execute("ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
        }
        HttpResponse<String> back = Eventually.within(RECOVERY, r -> r.statusCode() == 200, () -> get("/readyz"));
        assertThat(back.body()).isEqualTo("ready: region cn\n");
        assertThat(metric("unitas_check_up", "pg-primary")).isEqualTo(1.0);
        assertThat(grpcCheck("")).isEqualTo(ServingStatus.SERVING);
    }

    @Test
    void replicationBacklog_withReplayPausedLagRisesPastMaxLagAndTheRegionTurnsUnhealthyUntilResumed() {
        pg.standby().execute("SELECT pg_wal_replay_pause()");
        try {
            pg.primary().execute("CREATE TABLE IF NOT EXISTS orders (id serial, at timestamptz DEFAULT now())",
                                 "INSERT INTO orders DEFAULT VALUES");
            HttpResponse<String> ready = Eventually.within(Duration.ofSeconds(10), r -> r.statusCode() == 503,
                                                           () -> get("/readyz"));

            assertThat(ready.body()).matches("(?s)not ready: region cn\n"
                    + "- pg-standby: replication lag \\d+ms \\(expected: <= 1000ms\\)\n");
            assertThat(metric("unitas_replication_lag_seconds", "pg-standby")).isGreaterThan(1.0);
            HealthReport report = HealthReportJson.read(get("/healthz").body());
            assertThat(report.health().replicationLagMs()).isGreaterThan(1000);
        } finally {
            pg.standby().execute("SELECT pg_wal_replay_resume()");
        }
        assertThat(Eventually.within(RECOVERY, r -> r.statusCode() == 200, () -> get("/readyz")).statusCode())
                .isEqualTo(200);
        assertThat(metric("unitas_replication_lag_seconds", "pg-standby")).isLessThan(1.0);
    }

    static Stream<Arguments> failures() {
        int nowhere = Ports.free();
        return Stream.of(
                Arguments.of("MariaDB read_only", "mariadb: read-only (read_only=ON)",
                        (Runnable) () -> mariadb.execute("SET GLOBAL read_only = ON"),
                        (Runnable) () -> mariadb.execute("SET GLOBAL read_only = OFF")),
                Arguments.of("Redis replica link loss", "sessions: replication link to 127.0.0.1:" + nowhere
                                                        + " is down",
                        (Runnable) () -> redis.replica().execute(c -> c.replicaof("127.0.0.1", nowhere)),
                        (Runnable) () -> redis.replica().execute(c -> c.replicaof("127.0.0.1",
                                                                                  redis.primary().port()))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void eachFailureTurnsReadyz503NamingTheCheckWithinTheDetectionTime_andHealsWhenUndone(
            String what, String reason, Runnable breakIt, Runnable undo) {
        breakIt.run();
        long start = System.nanoTime();
        try {
            HttpResponse<String> ready = Eventually.within(DETECTION.plusSeconds(2), r -> r.statusCode() == 503,
                                                           () -> get("/readyz"));

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThanOrEqualTo(DETECTION);
            assertThat(ready.body()).startsWith("not ready: region cn\n- " + reason);
            assertThat(get("/livez").statusCode()).isEqualTo(200);
        } finally {
            undo.run();
        }
        assertThat(Eventually.within(RECOVERY, r -> r.statusCode() == 200, () -> get("/readyz")).statusCode())
                .isEqualTo(200);
    }

    @Test
    void grpcWatchStreamsEachChangeOfTheRegion() throws InterruptedException {
        BlockingQueue<ServingStatus> statuses = watch("");
        assertThat(statuses.poll(5, TimeUnit.SECONDS)).isEqualTo(ServingStatus.SERVING);

        mariadb.execute("SET GLOBAL read_only = ON");
        try {
            assertThat(statuses.poll(10, TimeUnit.SECONDS)).isEqualTo(ServingStatus.NOT_SERVING);
        } finally {
            mariadb.execute("SET GLOBAL read_only = OFF");
        }
        assertThat(statuses.poll(RECOVERY.toSeconds(), TimeUnit.SECONDS)).isEqualTo(ServingStatus.SERVING);
    }

    @Test
    void grpcUnknownServices_checkIsNotFoundAndWatchIsServiceUnknown() throws InterruptedException {
        assertThatThrownBy(() -> grpcCheck("no-such-check")).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
        BlockingQueue<ServingStatus> statuses = watch("no-such-check");
        assertThat(statuses.poll(5, TimeUnit.SECONDS)).isEqualTo(ServingStatus.SERVICE_UNKNOWN);
    }

    @Test
    void healthzIsTheJsonReportOfEveryCheck() {
        HttpResponse<String> healthz = get("/healthz");

        assertThat(healthz.headers().firstValue("content-type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        HealthReport report = HealthReportJson.read(healthz.body());
        assertThat(report.healthy()).isTrue();
        assertThat(report.checks()).containsOnlyKeys("pg-primary", "pg-standby", "mariadb", "sessions");
        assertThat(report.checks().get("pg-primary").details()).containsEntry("role", "primary")
                .containsEntry("heartbeat", "written");
        assertThat(report.health().score()).isBetween(0.5, 1.0);
    }

    @Test
    void pushSendsTheLatestReportWithTheBearerToken_retryingFailures() {
        List<String> pushed = Eventually.within(Duration.ofSeconds(10), p -> !p.isEmpty(), () -> PUSHED);

        assertThat(pushed).isNotEmpty();
        assertThat(PUSH_AUTH).allMatch("Bearer t0ken"::equals);
        assertThat(PUSH_FAILURES_LEFT.get()).isNegative();
        HealthReport last = HealthReportJson.read(PUSHED.get(PUSHED.size() - 1));
        assertThat(last.region().id()).isEqualTo("cn");
        assertThat(last.sequence()).isPositive();
    }
}
