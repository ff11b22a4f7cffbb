package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.config.ConsistencyFile;
import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;

/**
 * A control plane given a consistency contract refuses {@code unitas ctl switch} and {@code unitas ctl promote} out of
 * a unit's residency group over its API, naming the rule; {@code unitas control --consistency} reads the file first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlResidencyTest {

    private static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);

    @TempDir
    static Path dir;

    private ControlServer server;
    private String contract;

    @BeforeAll
    void start() throws Exception {
        contract = Cli.file(dir, "consistency.yaml", """
                residency:
                  paris-west: [eu, us]
                units:
                  u-paris: paris-west
                entities:
                  accounts: {consistency: strong}
                """);
        Path tokens = Files.writeString(dir.resolve("tokens"), ADMIN.fileLine() + "\n");
        server = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(tokens)
                .residency(ConsistencyFile.read(Path.of(contract))).start();
        Path root = Cli.root();
        assertThat(ctl("apply", "-f", root.resolve("examples/topology.yaml").toString()).exit()).isZero();
        assertThat(ctl("apply", "-f", root.resolve("examples/rules.yaml").toString()).exit()).isZero();
        RawClient admin = RawClient.of(server.uri(), ADMIN.secret());
        for (String region : new String[] {"cn", "eu", "us"}) {
            assertThat(admin.send("PUT", "/api/v1/health/" + region, "{\"region\":\"" + region + "\","
                    + "\"sequence\":1,\"observed_at\":\"" + java.time.Instant.now() + "\",\"healthy\":true,"
                    + "\"writable\":true,\"replication_lag_ms\":0,\"score\":1,\"reasons\":[],\"checks\":{}}",
                    Map.of()).ok()).isTrue();
        }
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
    void switchOutOfTheGroup_isRefused_namingTheRule() {
        Cli run = ctl("switch", "--units", "u-paris", "--to", "cn", "--dry-run");
        assertThat(run.exit()).as(run.toString()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("units[0]: moving unit u-paris from eu to cn would place it outside "
                + "paris-west: [eu, us] (" + contract + ":4: units.u-paris) [residency-home]\n");
    }

    @Test
    void promoteOutOfTheGroup_isRefusedToo() {
        Cli run = ctl("promote", "u-paris", "--to", "cn");
        assertThat(run.exit()).as(run.toString()).isEqualTo(1);
        assertThat(run.err()).contains("moving unit u-paris from eu to cn would place it outside").contains("[residency-home]");
    }

    @Test
    void switchInsideTheGroup_isPlanned() {
        Cli run = ctl("switch", "--units", "u-paris", "--to", "us", "--dry-run");
        assertThat(run.exit()).as(run.toString()).isZero();
    }

    @Test
    void controlCommand_readsTheContractFirst_badInputExits2() {
        String bad = Cli.file(dir, "bad.yaml", "entities:\n  cart: {consistency: sometimes}\n");
        Cli run = Cli.run("control", "--consistency", bad, "--data", dir.resolve("never").toString());
        assertThat(run).isEqualTo(new Cli(2, "", bad + ":2: entities.cart.consistency: 'sometimes' (expected: "
                                                 + "strong, bounded-staleness or eventual)\n"));
    }
}
