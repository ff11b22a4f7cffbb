package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConsistencyFile;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;

/** {@code unitas ctl} against a real control plane, in-process. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CtlCommandTest {

    private static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);
    private static final ControlToken VIEWER = ControlToken.generate("watcher", Role.VIEWER);
    /** Each report's sequence, newer than every one before it. */
    private static final AtomicLong SEQUENCE = new AtomicLong();

    @TempDir
    static Path dir;

    private ControlServer server;

    @BeforeAll
    void start() throws Exception {
        Path tokens = Files.writeString(dir.resolve("tokens"), ADMIN.fileLine() + "\n" + VIEWER.fileLine() + "\n");
        server = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(tokens)
                              .residency(ConsistencyFile.parse(ConfigDocument.parse("consistency.yaml", """
                                      entities:
                                        prices:
                                          consistency: bounded-staleness
                                          staleness_budget: 100ms
                                        catalog:
                                          consistency: bounded-staleness
                                          staleness_budget: 5s
                                      """)))
                              .start();
        Path root = Cli.root();
        assertThat(ctl("apply", "-f", root.resolve("examples/topology.yaml").toString()).exit()).isZero();
        assertThat(ctl("apply", "-f", root.resolve("examples/rules.yaml").toString(), "--reason", "first").out())
                .startsWith("rules applied: revision ");
        reportAll();
    }

    @Test
    void budgets_eachAgainstTheLargestLagReported() {
        reportAll();
        Cli run = ctl("budgets");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).containsPattern("prices +100ms +300 ms +OVER BUDGET +unit u-newyork from us to eu")
                             .containsPattern("catalog +5s +300 ms +within");
    }

    /** Each region healthy; cn's units 20 ms behind in eu, us's 300 ms (what a promotion states as its RPO). */
    private void report(String region) {
        String unitLag = switch (region) {
            case "cn" -> ",\"unit_lag\":{\"u-shanghai\":{\"eu\":" + lag(20) + "},\"u-hangzhou\":{\"eu\":" + lag(20)
                         + "}}";
            case "us" -> ",\"unit_lag\":{\"u-newyork\":{\"eu\":" + lag(300) + "}}";
            default -> "";
        };
        RawClient.of(server.uri(), ADMIN.secret()).send("PUT", "/api/v1/health/" + region, "{\"region\":\""
                + region + "\",\"sequence\":" + SEQUENCE.incrementAndGet() + ",\"observed_at\":\"" + Instant.now()
                + "\",\"healthy\":true,"
                + "\"writable\":true,\"replication_lag_ms\":20,\"score\":1,\"reasons\":[],\"checks\":{}" + unitLag
                + "}", Map.of());
    }

    private void reportAll() {
        for (String region : new String[] {"cn", "eu", "us"}) {
            report(region);
        }
    }

    /**
     * Runs {@code command} while {@code reports} run every 200 ms, as the regions' health agents would: a switchover
     * counts only lag measured after its fence went up.
     */
    private static <T> T reporting(Runnable reports, Supplier<T> command) {
        ScheduledExecutorService agents = Executors.newSingleThreadScheduledExecutor();
        agents.scheduleWithFixedDelay(() -> {
            try {
                reports.run();
            } catch (RuntimeException e) {
                // the next round reports again
            }
        }, 200, 200, TimeUnit.MILLISECONDS);
        try {
            return command.get();
        } finally {
            agents.shutdownNow();
        }
    }

    private static String lag(long ms) {
        return "{\"lag_ms\":" + ms + ",\"measured_at\":\"" + Instant.now() + "\"}";
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private Cli ctl(String... args) {
        String[] all = new String[args.length + 5];
        all[0] = "ctl";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--server";
        all[args.length + 2] = server.uri().toString();
        all[args.length + 3] = "--token";
        all[args.length + 4] = ADMIN.secret();
        return Cli.run(all);
    }

    @Test
    void applyingAnInvalidFile_printsEveryProblemWithFileLineAndPath_andExits2() {
        String bad = Cli.file(dir, "bad-rules.yaml", """
                units:
                  - {id: u-a, region: cn}
                  - {id: u-b, region: mars}
                key: {sources: [{header: x-user-id}], transform: mod 10}
                ranges:
                  - {range: 0~9, unit: u-a}
                """);

        Cli res = ctl("apply", "-f", bad);

        assertThat(res.exit()).isEqualTo(2);
        assertThat(res.err()).startsWith(bad + ":3: units[1].region: unknown region 'mars'");
    }

    @Test
    void get_printsTheStateOrOnePart() {
        Cli res = ctl("get", "topology");

        assertThat(res.exit()).isZero();
        assertThat(res.out()).contains("\"id\" : \"cn\"");
    }

    @Test
    void fenceAndUnfence() {
        assertThat(ctl("fence", "u-newyork", "--reason", "db repair").out()).startsWith("fenced u-newyork: revision ");
        assertThat(ctl("unfence", "u-newyork").exit()).isZero();
        Cli refused = ctl("unfence", "u-newyork");
        assertThat(refused.exit()).as("a refused change").isEqualTo(1);
        assertThat(refused.err()).contains("not fenced");
    }

    @Test
    void aUnitIdThatIsNoPlainPathSegment_isSentAsOneSegment_andNamedBackAsGiven() {
        // unencoded, the space would make no URI, and ? and # would cut the id short into a query and a fragment
        Cli refused = ctl("unfence", "u ny?x=1#2");

        assertThat(refused.exit()).as(refused.err()).isEqualTo(1);
        assertThat(refused.err()).contains("unit 'u ny?x=1#2': not fenced");
    }

    @Test
    void fence_retryAfter_isWhatRefusedWritesAreTold_andANonsenseWaitIsRefused() {
        assertThat(ctl("fence", "u-newyork", "--retry-after", "1m").exit()).isZero();
        assertThat(ctl("get", "fences").out()).contains("\"retry_after\" : \"1m\"");

        Cli refused = ctl("fence", "u-paris", "--retry-after", "now");
        assertThat(refused.exit()).as("bad input").isEqualTo(Main.EXIT_USAGE);
        assertThat(refused.err()).contains("--retry-after").contains("'now'").doesNotContain("Exception");
        assertThat(ctl("get", "fences").out()).doesNotContain("u-paris");
        ctl("unfence", "u-newyork");
    }

    @Test
    void switchWait_rolledBack_exits1_soAScriptKnowsTheUnitsDidNotMove() {
        // cn reports u-shanghai 20 ms behind in eu: it never reaches 1 ms, and the deadline rolls the switchover back.
        Cli res = reporting(this::reportAll, () -> ctl("switch", "--units", "u-shanghai", "--to", "eu", "--max-lag",
                                                        "1ms", "--timeout", "1s", "--wait"));

        assertThat(res.out()).contains("rolled_back: ");
        assertThat(res.exit()).as(res.out() + res.err()).isEqualTo(1);
        assertThat(res.err()).contains("switchover ").contains(" rolled_back");
        assertThat(ctl("get", "rules").out()).contains("\"u-shanghai\"");
    }

    @Test
    void abortingASwitchoverThatIsNotRunning_isRefused_exit1() {
        Cli res = ctl("abort", "sw-does-not-exist");

        assertThat(res.exit()).isEqualTo(1);
        assertThat(res.err()).contains("not the current one");
    }

    @Test
    void ctlHelp_documentsTheExitCodes() {
        Cli res = Cli.run("ctl", "--help");

        assertThat(res.exit()).isZero();
        assertThat(res.out()).contains("Exit codes:")
                .containsPattern("0 +done; for switch --wait and promote: the units moved")
                .containsPattern("(?s)1 +refused .*rolled back or aborted")
                .containsPattern("2 +bad input");
    }

    @Test
    void switchDryRun_printsThePlan_andMovesNothing() {
        long before = server.revision();

        Cli res = ctl("switch", "--units", "u-paris", "--to", "us", "--dry-run");

        assertThat(res.exit()).as(res.err()).isZero();
        assertThat(res.out()).contains("plan: move to us").contains("u-paris      eu -> us");
        assertThat(server.revision()).isEqualTo(before);
    }

    @Test
    void switchWait_followsTheSwitchoverToItsEnd_andTheAuditShowsIt() {
        Cli res = reporting(this::reportAll, () -> ctl("switch", "--units", "u-hangzhou", "--to", "eu", "--max-lag",
                                                        "500ms", "--wait", "--reason", "drill"));

        assertThat(res.exit()).as(res.err()).isZero();
        assertThat(res.out()).contains("catching_up: fenced writes of u-hangzhou").contains("completed: unfenced");
        assertThat(ctl("audit").out()).contains("switchover.start").contains("(reason: drill)");
    }

    @Test
    void promote_movesWithoutWaiting_printsEachUnitsRpo_andExits0() {
        Cli res = ctl("promote", "u-newyork", "--to", "eu", "--reason", "us is gone");

        assertThat(res.exit()).as(res.out() + res.err()).isZero();
        assertThat(res.out()).contains("promotion sw-").contains("u-newyork -> eu")
                .containsPattern("RPO u-newyork +<= 300 ms of writes")
                .contains("flipped: promoted without waiting on lag (RPO u-newyork 300 ms)").contains("completed: ");
        assertThat(ctl("audit").out()).contains("switchover.promote");
    }

    @Test
    void promote_refused_exits1() {
        Cli res = ctl("promote", "u-paris", "--to", "eu");

        assertThat(res.exit()).isEqualTo(1);
        assertThat(res.err()).contains("unit 'u-paris' already has home eu");
    }

    @Test
    void accept_startsTheMoveAFailoverPolicyProposed_andFollowsItToItsEnd() throws Exception {
        Path own = Files.createDirectories(dir.resolve("accept"));
        Path tokens = Files.writeString(own.resolve("tokens"), ADMIN.fileLine() + "\n");
        try (ControlServer other = ControlServer.builder().port(0).dataDir(own.resolve("data")).tokens(tokens)
                                                .start()) {
            Path root = Cli.root();
            String at = other.uri().toString();
            assertThat(Cli.run("ctl", "apply", "-f", root.resolve("examples/topology.yaml").toString(), "--server", at,
                               "--token", ADMIN.secret()).exit()).isZero();
            assertThat(Cli.run("ctl", "apply", "-f", root.resolve("examples/rules.yaml").toString(), "--server", at,
                               "--token", ADMIN.secret()).exit()).isZero();
            String policy = Cli.file(own, "failover.yaml", """
                    groups:
                      - {name: shanghai, units: [u-shanghai], mode: ask, after: 0s}
                    """);
            Cli applied = Cli.run("ctl", "apply", "-f", policy, "--server", at, "--token", ADMIN.secret());
            assertThat(applied.out()).as(applied.err()).startsWith("failover applied: revision ");
            RawClient client = RawClient.of(other.uri(), ADMIN.secret());
            Runnable reports = () -> {
                for (String region : new String[] {"eu", "us"}) {
                    client.send("PUT", "/api/v1/health/" + region, "{\"region\":\"" + region + "\",\"sequence\":"
                            + SEQUENCE.incrementAndGet() + ",\"observed_at\":\"" + Instant.now()
                            + "\",\"healthy\":true,\"writable\":true,\"replication_lag_ms\":20,\"score\":1,"
                            + "\"reasons\":[],\"checks\":{}}", Map.of());
                }
                // cn's database is read-only; it still ships, and u-shanghai's changes are all in eu.
                client.send("PUT", "/api/v1/health/cn", "{\"region\":\"cn\",\"sequence\":" + SEQUENCE.incrementAndGet()
                        + ",\"observed_at\":\"" + Instant.now() + "\",\"healthy\":true,\"writable\":false,"
                        + "\"replication_lag_ms\":20,\"score\":0.5,\"reasons\":[\"pg: read-only\"],\"checks\":{},"
                        + "\"unit_lag\":{\"u-shanghai\":{\"eu\":" + lag(0) + "}}}", Map.of());
            };
            reports.run();
            io.unitas.testkit.Await.until("a proposal", java.time.Duration.ofSeconds(20),
                    () -> client.get("/api/v1/state").json().path("proposals").size() == 1);

            Cli res = reporting(reports, () -> Cli.run("ctl", "accept", "shanghai@cn", "--server", at, "--token",
                                                       ADMIN.secret()));

            assertThat(res.exit()).as(res.out() + res.err()).isZero();
            assertThat(res.out()).contains("proposal shanghai@cn accepted: switchover sw-1 started")
                    .contains("flipped: u-shanghai caught up in eu").contains("completed: ");
            assertThat(Cli.run("ctl", "accept", "shanghai@cn", "--server", at, "--token", ADMIN.secret()).exit())
                    .isEqualTo(1);
        }
    }

    @Test
    void aViewerMayNotFence_andNoServerIsExit5() {
        Cli forbidden = Cli.run("ctl", "fence", "u-paris", "--server", server.uri().toString(), "--token",
                                VIEWER.secret());
        assertThat(forbidden.exit()).isEqualTo(CtlCommand.EXIT_FORBIDDEN);
        assertThat(forbidden.err()).contains("403").contains("role viewer");

        Cli unreachable = Cli.run("ctl", "get", "--server", "http://127.0.0.1:1", "--token", "x");
        assertThat(unreachable.exit()).isEqualTo(CtlCommand.EXIT_UNREACHABLE);
    }

    @Test
    void token_printsTheSecretAndTheTokensFileLine() {
        Cli res = Cli.run("ctl", "token", "--name", "agent-cn", "--role", "reporter");

        assertThat(res.exit()).isZero();
        assertThat(res.out()).containsPattern("token: +utk_").containsPattern("agent-cn reporter sha256:[0-9a-f]{64}");
        assertThat(Cli.run("ctl", "token", "--name", "x", "--role", "boss").exit()).isEqualTo(2);
    }

    @Test
    void resetHealth_forgetsARegionsLastReport() {
        Cli res = ctl("reset-health", "us", "--reason", "forged report");

        assertThat(res.exit()).as(res.err()).isZero();
        assertThat(res.out()).startsWith("health of us reset: revision ");
        assertThat(RawClient.of(server.uri(), ADMIN.secret()).get("/api/v1/state").json().path("health")
                                .has("us")).isFalse();
        assertThat(ctl("reset-health", "mars").exit()).isEqualTo(CtlCommand.EXIT_REFUSED);
        report("us"); // healthy again, for the other tests
    }

    @Test
    void aTokenBoundToARegion_hasItInItsTokensFileLine() {
        Cli res = ctl("token", "--name", "agent-cn", "--role", "reporter", "--region", "cn");

        assertThat(res.exit()).isZero();
        assertThat(res.out()).containsPattern("tokens file: agent-cn reporter sha256:[0-9a-f]{64} region:cn");
        assertThat(ctl("token", "--name", "agent-x", "--role", "reporter", "--region", "C N").exit())
                .isEqualTo(Main.EXIT_USAGE);
    }
}
