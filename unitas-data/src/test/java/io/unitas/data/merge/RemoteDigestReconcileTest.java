package io.unitas.data.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.reconcile.RangeDiff;
import io.unitas.core.reconcile.RepairAction;
import io.unitas.data.merge.MergeRegions.Node;
import io.unitas.data.outbox.ApplyResult;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.testkit.MutableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reconciliation across two regions that reach each other only through their home-read servers, on real
 * PostgreSQL: cn is the home of u-1, eu of u-2, and each reads the other's copy over HTTP/2. Drift injected into each
 * region's copy of the other's unit, behind the library's back, is repaired through the merge path by one pass on
 * each side, and the passes are on record in {@code unitas_reconcile_passes}.
 */
class RemoteDigestReconcileTest {

    private static final String TOKEN = "s3cret";
    private static final int POSTS = 600; // more than a page of rows, so the home's rows come in two pages
    private static final int RANGES = 4;
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Set<String> TYPES = Set.of("likes", "name");

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final MergeRegions regions = new MergeRegions(List.of(MergeOnApplyTest.LIKES, MergeOnApplyTest.NAME),
                                                          clock);
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        regions.close();
    }

    @Test
    void driftInEachRegionsCopy_isRepairedFromItsHomeOverTheNetwork_andRecorded() throws SQLException {
        Node cn = node("cn");
        Node eu = node("eu");
        write(cn, tx -> {
            for (int i = 0; i < POSTS; i++) {
                int n = i;
                cn.store().write(tx, cn.outbox(), MergeOnApplyTest.LIKES, "u-1", "post-" + i,
                                 s -> s.orElse(PnCounter.zero()).add("cn", n + 1));
            }
        });
        write(eu, tx -> {
            for (int i = 0; i < 20; i++) {
                int n = i;
                eu.store().write(tx, eu.outbox(), MergeOnApplyTest.NAME, "u-2", "user-" + i,
                                 s -> LwwRegister.initial("eu", "name " + n, 1_000 + n));
            }
        });
        ship(cn, eu);
        ship(eu, cn);
        HomeReadServer cnServer = serve(cn, "u-1");
        HomeReadServer euServer = serve(eu, "u-2");
        SimpleMeterRegistry euMeters = new SimpleMeterRegistry();
        HomeReadClient euClient = client(cn.region(), cnServer, TOKEN, euMeters);
        HomeReadClient cnClient = client(eu.region(), euServer, TOKEN, new SimpleMeterRegistry());

        // Drift: eu loses half of its copy of u-1's likes (in every range), cn's copy of u-2 has 5 names altered.
        sql(eu, "DELETE FROM unitas_merge_state WHERE unit = 'u-1' AND (substr(entity_key, 6)::int % 2) = 0");
        for (int i = 0; i < 5; i++) {
            LwwRegister<String> real = eu.store().read(MergeOnApplyTest.NAME, "user-" + i).get();
            setState(cn, "user-" + i, Codec.lww(Codec.utf8()).encode(
                    LwwRegister.of("Mallory", real.version(), real.timestamp(), real.region())));
        }
        assertThat(differing(euClient.mergeCopy(cn.region()), MergeDigests.postgres(eu.db()), "u-1", "likes"))
                .as("every range of u-1's likes differs").isEqualTo(RANGES);

        Map<String, Region> homes = Map.of("u-1", cn.region(), "u-2", eu.region());
        DigestReconciler inEu = reconciler(eu, cn.region(), euClient.mergeCopy(cn.region()));
        DigestReconciler inCn = reconciler(cn, eu.region(), cnClient.mergeCopy(eu.region()));

        List<DigestReport> euReports = inEu.runDue(homes);
        List<DigestReport> cnReports = inCn.runDue(homes);

        assertThat(euReports).singleElement().satisfies(r -> {
            assertThat(r.unit()).isEqualTo("u-1");
            assertThat(r.failure()).isEmpty();
            assertThat(r.count(RepairAction.ADOPT)).as("deleted rows adopted from cn").isEqualTo(POSTS / 2);
            assertThat(r.rangesPending()).isZero();
        });
        assertThat(cnReports).singleElement().satisfies(r -> {
            assertThat(r.unit()).isEqualTo("u-2");
            assertThat(r.failure()).isEmpty();
            assertThat(r.count(RepairAction.REPLACE)).as("altered names replaced by eu's").isEqualTo(5);
        });
        assertThat(likes(eu, "post-8")).as("the service's table repaired through the merge path").isEqualTo(9);
        assertThat(cn.store().read(MergeOnApplyTest.NAME, "user-3").get().value()).isEqualTo("name 3");
        for (String type : TYPES) {
            assertThat(differing(MergeDigests.postgres(cn.db()), MergeDigests.postgres(eu.db()), "u-1", type))
                    .as("u-1 %s converged", type).isZero();
            assertThat(differing(MergeDigests.postgres(cn.db()), MergeDigests.postgres(eu.db()), "u-2", type))
                    .as("u-2 %s converged", type).isZero();
        }
        assertThat(euMeters.get("unitas.data.home.merge.reads").tag("what", "rows").tag("outcome", "ok").counter()
                           .count()).as("u-1's 600 rows at cn, in pages of 500").isEqualTo(2);
        assertThat(recordedPass(eu, "u-1")).startsWith("cn ").endsWith(" " + POSTS / 2 + " null");
        assertThat(recordedPass(cn, "u-2")).startsWith("eu ").endsWith(" 5 null");
        assertThat(inEu.reason()).isEmpty();
    }

    @Test
    void aHomeThatRefuses_endsThePassWithAFailureNamingIt_onRecord() throws SQLException {
        Node cn = node("cn");
        Node eu = node("eu");
        HomeReadServer cnServer = serve(cn, "u-1");
        HomeReadClient wrongToken = client(cn.region(), cnServer, "not-the-token", new SimpleMeterRegistry());
        HomeReadClient client = client(cn.region(), cnServer, TOKEN, new SimpleMeterRegistry());

        DigestReconciler refusing = reconciler(eu, cn.region(), wrongToken.mergeCopy(cn.region()));
        DigestReport refused = refusing.reconcile("u-1", cn.region());
        DigestReport notHome = reconciler(eu, cn.region(), client.mergeCopy(cn.region()))
                .reconcile("u-2", cn.region());

        assertThat(refused.failure()).get().asString()
                .contains("digests of likes of unit u-1 from home region cn: answered", "401");
        assertThat(notHome.failure()).get().asString()
                .contains("digests of likes of unit u-2 from home region cn: answered", "421");
        assertThat(recordedPass(eu, "u-1")).startsWith("cn ").contains("401");
        assertThat(refusing.driftReason()).get().asString()
                .startsWith("unit u-1: reconciliation against cn failed: digests of likes of unit u-1");
    }

    private Node node(String id) {
        Node node = regions.node(id);
        sql(node, "CREATE TABLE likes (post_id VARCHAR(100) PRIMARY KEY, n BIGINT NOT NULL)");
        return node;
    }

    private HomeReadServer serve(Node node, String owned) {
        HomeReadServer server = HomeReadServer.builder().region(node.region()).owns(owned::equals).token(TOKEN)
                .mergeCopy(MergeDigests.postgres(node.db()), TYPES).meterRegistry(new SimpleMeterRegistry()).start();
        closing.add(server);
        return server;
    }

    private HomeReadClient client(Region home, HomeReadServer server, String token, SimpleMeterRegistry meters) {
        // a deadline for a busy shared machine; the rotation and attempts are the home reads'
        HomeReadClient client = HomeReadClient.builder().endpoint(home, server.uri()).token(token)
                .deadline(Duration.ofSeconds(5)).hedgeAfter(Duration.ofSeconds(4)).meterRegistry(meters).build();
        closing.add(client);
        return client;
    }

    private DigestReconciler reconciler(Node node, Region home, MergeDigests homeCopy) {
        return DigestReconciler.builder(node.store(), MergeDigests.postgres(node.db())).home(home, homeCopy)
                .ranges(RANGES).window(WINDOW).clock(clock).registry(new SimpleMeterRegistry()).build();
    }

    private interface Tx {
        void run(Connection tx) throws SQLException;
    }

    private static void write(Node node, Tx body) throws SQLException {
        try (Connection tx = node.db().getConnection()) {
            tx.setAutoCommit(false);
            body.run(tx);
            tx.commit();
        }
    }

    /** Every change of {@code from} that {@code to} has not applied yet, per unit. */
    private static void ship(Node from, Node to) {
        Map<String, Long> applied = to.applier().positions(from.region());
        List<ChangeEnvelope> fresh = from.changes().stream()
                                         .filter(c -> c.sequence() > applied.getOrDefault(c.unit(), 0L)).toList();
        assertThat(to.applier().applyAll(fresh)).allMatch(ApplyResult::consumed);
    }

    private static int differing(MergeDigests a, MergeDigests b, String unit, String type) {
        return RangeDiff.differing(a.digests(unit, type, RANGES), b.digests(unit, type, RANGES)).size();
    }

    private static String recordedPass(Node node, String unit) throws SQLException {
        try (Connection c = node.db().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT home, keys_repaired, failure"
                                                       + " FROM unitas_reconcile_passes WHERE unit = ?")) {
            ps.setString(1, unit);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) : "";
            }
        }
    }

    private static void setState(Node node, String key, byte[] state) throws SQLException {
        try (Connection c = node.db().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "UPDATE unitas_merge_state SET state = ? WHERE entity_type = 'name' AND entity_key = ?")) {
            ps.setBytes(1, state);
            ps.setString(2, key);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static long likes(Node node, String post) throws SQLException {
        try (Connection c = node.db().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT n FROM likes WHERE post_id = ?")) {
            ps.setString(1, post);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    private static void sql(Node node, String statement) {
        try (Connection c = node.db().getConnection(); Statement s = c.createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
