package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.Siblings;
import io.unitas.data.merge.Codec;
import io.unitas.data.merge.MergeStore;
import io.unitas.data.merge.MergedEntity;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.Outbox;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code unitas siblings list} and {@code resolve} against a region's real PostgreSQL: cn holds an address written
 * concurrently in cn and eu; the command lists both versions, resolves by choosing one on record, and the resolution
 * is in cn's outbox, on its way to every region.
 */
class SiblingsCommandTest {

    private static final MergedEntity<Siblings<String>> ADDRESS =
            MergedEntity.of("address", MergePolicy.siblings(), Codec.siblings(Codec.utf8()));
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");

    private final SqlServer server = PostgresCluster.shared().primary();
    private final String name = "unitas_cli_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    @AfterEach
    void drop() {
        server.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private PGSimpleDataSource database(String db) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url(db));
        return ds;
    }

    private String url(String db) {
        return "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + db + "?user=postgres";
    }

    @Test
    void listsTheVersions_andResolvesOneOnRecord() throws SQLException {
        server.execute("CREATE DATABASE " + name);
        PGSimpleDataSource cn = database(name);
        Clock clock = Clock.systemUTC();
        MergeStore store = MergeStore.jdbc(CN, cn, List.of(ADDRESS), clock, new SimpleMeterRegistry());
        Outbox outbox = Outbox.jdbc(CN, cn, clock);
        try (Connection tx = cn.getConnection()) {
            tx.setAutoCommit(false);
            store.write(tx, outbox, ADDRESS, "u-1", "alice", s -> s.orElse(Siblings.empty()).write("cn", "1 Main St"));
            tx.commit();
        }
        byte[] fromEu = Codec.siblings(Codec.utf8()).encode(Siblings.<String>empty().write("eu", "2 Rue Haute — 3e"));
        ChangeApplier.jdbc(CN, cn, store.handlers(), clock, new SimpleMeterRegistry())
                     .apply(new ChangeEnvelope("u-1", EU, 1, "address", "alice", fromEu, clock.instant()));

        Cli list = Cli.run("siblings", "list", "--db", url(name), "--region", "cn");

        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains("type\tkey\tunit\tversions\tdetected_at", "address\talice\tu-1\t2\t",
                                        "  [1] {cn=1} 1 Main St", "  [2] {eu=1} 2 Rue Haute — 3e");

        Cli wrong = Cli.run("siblings", "resolve", "--db", url(name), "--region", "cn", "--type", "address",
                            "--key", "alice", "--choose", "3", "--who", "ops:lin", "--reason", "phoned");
        assertThat(wrong.exit()).isEqualTo(SiblingsCommand.EXIT_NOTHING);
        assertThat(wrong.err()).isEqualTo("--choose: 3 (expected: 1 to 2)" + System.lineSeparator());

        Cli resolve = Cli.run("siblings", "resolve", "--db", url(name), "--region", "cn", "--type", "address",
                              "--key", "alice", "--choose", "2", "--who", "ops:lin", "--reason", "phoned");

        assertThat(resolve.exit()).as(resolve.err()).isZero();
        assertThat(store.read(ADDRESS, "alice").get().value()).isEqualTo("2 Rue Haute — 3e");
        assertThat(store.openSiblings()).isEmpty();
        assertThat(store.resolutions("address", "alice")).singleElement()
                .satisfies(r -> assertThat(r.who() + " " + r.reason()).isEqualTo("ops:lin phoned"));
        List<ChangeEnvelope> shipped = outbox.after(0, 10);
        assertThat(Codec.siblings(Codec.utf8()).decode(shipped.get(shipped.size() - 1).payload()).values())
                .as("the resolution, on its way to every region").containsExactly("2 Rue Haute — 3e");
        assertThat(Cli.run("siblings", "list", "--db", url(name), "--region", "cn").out())
                .isEqualTo("type\tkey\tunit\tversions\tdetected_at" + System.lineSeparator());
    }

    @Test
    void aDatabaseWithoutUnitasTables_isOneLine_exit1() {
        server.execute("CREATE DATABASE " + name);

        Cli r = Cli.run("siblings", "list", "--db", url(name), "--region", "cn");

        assertThat(r.exit()).isEqualTo(SiblingsCommand.EXIT_DATABASE);
        assertThat(r.err().lines()).singleElement().asString().contains("unitas_schema_history");
    }

    @Test
    void aUrlThatIsNotJdbcPostgres_isBadInput() {
        Cli r = Cli.run("siblings", "list", "--db", "postgresql://127.0.0.1/x", "--region", "cn");

        assertThat(r.exit()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err()).isEqualTo("--db: 'postgresql://127.0.0.1/x' (expected: jdbc:postgresql://host:port/"
                                      + "database?user=...)" + System.lineSeparator());
    }
}
