package io.unitas.data.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.reconcile.RangeDiff;
import io.unitas.core.reconcile.RangeDigest;
import io.unitas.core.reconcile.RepairAction;
import io.unitas.data.merge.MergeRegions.Node;
import io.unitas.data.outbox.ApplyResult;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.testkit.MutableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reconciliation by digests on real PostgreSQL: eu holds a copy of unit u-1, whose home is cn. Drift is injected
 * into eu's database behind the library's back — rows deleted, values altered, counters lowered, rows added — beside
 * two writes of eu's own still on their way to cn. One pass, due by the injected clock, repairs every injected
 * difference through the store's locked path (the service's table with it), keeps eu's own writes, and leaves only
 * their ranges differing until they reach cn; then the copies' digests are identical.
 */
class DigestReconcileTest {

    private static final String UNIT = "u-1";
    private static final int KEYS = 100;
    private static final int RANGES = 64;
    private static final Duration WINDOW = Duration.ofSeconds(10);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final MergeRegions regions = new MergeRegions(List.of(MergeOnApplyTest.LIKES, MergeOnApplyTest.NAME),
                                                          clock);

    @AfterEach
    void close() {
        regions.close();
    }

    private Node node(String id) {
        Node node = regions.node(id);
        sql(node, "CREATE TABLE likes (post_id VARCHAR(100) PRIMARY KEY, n BIGINT NOT NULL)");
        return node;
    }

    @Test
    void injectedDrift_isRepairedFromTheHome_withinOneWindow_andTheCopiesConverge() throws SQLException {
        Node cn = node("cn");
        Node eu = node("eu");
        try (Connection tx = cn.db().getConnection()) { // one transaction: the test's setup, not its subject
            tx.setAutoCommit(false);
            for (int i = 0; i < KEYS; i++) {
                int n = i;
                cn.store().write(tx, cn.outbox(), MergeOnApplyTest.LIKES, UNIT, "post-" + i,
                                 s -> s.orElse(PnCounter.zero()).add("cn", n + 1));
                cn.store().write(tx, cn.outbox(), MergeOnApplyTest.NAME, UNIT, "user-" + i,
                                 s -> LwwRegister.initial("cn", "name " + n, 1_000 + n));
            }
            tx.commit();
        }
        shipAll(cn, eu);
        MergeDigests cnCopy = MergeDigests.postgres(cn.db());
        MergeDigests euCopy = MergeDigests.postgres(eu.db());
        assertThat(differing(cnCopy, euCopy)).as("replicated: identical digests").isZero();
        try (Connection c = cn.db().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT entity_key, " + PostgresMergeDigests.RANGE
                                                       + " FROM unitas_merge_state")) {
            ps.setInt(1, RANGES);
            try (ResultSet rs = ps.executeQuery()) {
                int n = 0;
                while (rs.next()) {
                    assertThat(MergeDigests.range(rs.getString(1), RANGES)).as("range of %s", rs.getString(1))
                            .isEqualTo(rs.getInt(2));
                    n++;
                }
                assertThat(n).isEqualTo(2 * KEYS);
            }
        }

        // Drift behind the library's back: 10 rows deleted, 10 counters lowered, 10 names altered under the same
        // version vector, 10 rows added that nobody wrote. 40 injected differences.
        sql(eu, "DELETE FROM unitas_merge_state WHERE entity_type = 'likes' AND entity_key IN ("
                + keys("post-", 0, 10) + ")");
        sql(eu, "DELETE FROM likes WHERE post_id IN (" + keys("post-", 0, 10) + ")");
        byte[] zero = Codec.counter().encode(PnCounter.zero());
        for (int i = 10; i < 20; i++) {
            setState(eu, "likes", "post-" + i, zero);
        }
        for (int i = 0; i < 10; i++) {
            LwwRegister<String> real = cn.store().read(MergeOnApplyTest.NAME, "user-" + i).get();
            setState(eu, "name", "user-" + i, Codec.lww(Codec.utf8()).encode(
                    LwwRegister.of("Mallory", real.version(), real.timestamp(), real.region())));
        }
        for (int i = 0; i < 10; i++) {
            insertStray(eu, "name", "ghost-" + i,
                        Codec.lww(Codec.utf8()).encode(LwwRegister.initial("cn", "ghost " + i, 5)));
        }
        // eu's own writes, acknowledged in eu and not yet shipped to cn: never to be undone by a repair
        eu.write(MergeOnApplyTest.NAME, UNIT, "user-50", s -> s.get().write("eu", "name 50, edited in eu", 9_000));
        eu.write(MergeOnApplyTest.NAME, UNIT, "user-new", s -> LwwRegister.initial("eu", "born in eu", 9_000));
        int injected = 40;
        assertThat(differing(cnCopy, euCopy)).isPositive();

        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        DigestReconciler reconciler = DigestReconciler.builder(eu.store(), euCopy)
                .home(cn.region(), cnCopy).ranges(RANGES).window(WINDOW).clock(clock).registry(meters).build();
        Map<String, io.unitas.core.Region> homes = Map.of(UNIT, cn.region());

        DigestReport report = reconciler.runDue(homes).get(0);

        assertThat(report.failure()).isEmpty();
        assertThat(report.count(RepairAction.ADOPT)).as("deleted rows adopted from cn").isEqualTo(10);
        assertThat(report.count(RepairAction.REPLACE)).as("lowered counters and altered names").isEqualTo(20);
        assertThat(report.count(RepairAction.DELETE)).as("rows nobody wrote").isEqualTo(10);
        assertThat(report.count(RepairAction.MERGE)).as("eu's edit of user-50, kept").isEqualTo(1);
        assertThat(report.count(RepairAction.KEEP)).as("eu's new user, kept").isEqualTo(1);
        double repairedFraction = (double) (report.count(RepairAction.ADOPT) + report.count(RepairAction.REPLACE)
                                            + report.count(RepairAction.DELETE)) / injected;
        assertThat(repairedFraction).isEqualTo(1.0);
        assertThat(report.rangesPending()).isBetween(1, 2);
        assertThat(differing(cnCopy, euCopy)).as("only eu's own writes' ranges").isEqualTo(report.rangesPending());
        assertThat(eu.store().read(MergeOnApplyTest.NAME, "user-50").get().value()).isEqualTo("name 50, edited in eu");
        assertThat(eu.store().read(MergeOnApplyTest.NAME, "user-3").get().value()).isEqualTo("name 3");
        assertThat(likes(eu, "post-4")).as("the service's table repaired with it").isEqualTo(5);
        assertThat(likes(eu, "post-14")).isEqualTo(15);
        assertThat(meters.get("unitas.data.reconcile.digest.keys").tag("action", "REPLACE").counters())
                .extracting(c -> c.count()).containsExactlyInAnyOrder(10.0, 10.0);
        assertThat(meters.get("unitas.data.reconcile.digest.ranges.pending").gauge().value())
                .isEqualTo(report.rangesPending());
        assertThat(reconciler.reason()).get().asString()
                .contains("unit u-1: " + report.rangesPending() + " ranges differ from cn");
        assertThat(recordedPass(eu)).as("the pass on record for the health agent")
                .isEqualTo("cn " + clock.instant().toEpochMilli() + " 10000 " + report.rangesCompared() + " "
                           + report.rangesDiffering() + " " + report.rangesPending() + " " + report.repaired()
                           + " null");

        clock.advance(WINDOW.minusSeconds(1));
        assertThat(reconciler.runDue(homes)).as("not due before its window").isEmpty();

        shipAll(eu, cn); // eu's own writes reach their home
        clock.advance(Duration.ofSeconds(1));
        DigestReport second = reconciler.runDue(homes).get(0);

        assertThat(second.rangesPending()).isZero();
        assertThat(second.repaired()).as("nothing left to repair: cn merged eu's writes as eu holds them").isZero();
        assertThat(differing(cnCopy, euCopy)).as("identical digests").isZero();
        assertThat(reconciler.reason()).isEmpty();
        assertThat(recordedPass(eu)).as("replaced by the second pass").endsWith(" 0 0 null")
                                    .startsWith("cn " + clock.instant().toEpochMilli() + " ");

        assertThat(reconciler.runDue(Map.of(UNIT, eu.region()))).as("u-1 moved home to eu").isEmpty();
        assertThat(recordedPass(eu)).as("no longer reconciled here, so no pass on record").isEmpty();
        assertThat(meters.get("unitas.data.reconcile.digest.ranges.pending").gauge().value()).isZero();
    }

    @Test
    void aHomeThatCannotBeRead_endsThePassWithAFailure_visibleInTheReason() throws SQLException {
        Node eu = node("eu");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        org.postgresql.ds.PGSimpleDataSource gone = new org.postgresql.ds.PGSimpleDataSource();
        gone.setUrl("jdbc:postgresql://127.0.0.1:" + MergeRegions.server().port() + "/no_such_database");
        gone.setUser("postgres");
        DigestReconciler reconciler = DigestReconciler.builder(eu.store(), MergeDigests.postgres(eu.db()))
                .home(io.unitas.core.Region.of("cn"), MergeDigests.postgres(gone)).window(WINDOW).clock(clock)
                .registry(meters).build();

        DigestReport report = reconciler.reconcile(UNIT, io.unitas.core.Region.of("cn"));

        assertThat(report.failure()).get().asString().contains("cannot digest likes of unit u-1");
        assertThat(meters.get("unitas.data.reconcile.digest.failures").counter().count()).isEqualTo(1);
        assertThat(reconciler.reason()).get().asString().contains("unit u-1: reconciliation against cn failed");
        assertThat(recordedPass(eu)).startsWith("cn ").contains("cannot digest likes of unit u-1");
        clock.advance(WINDOW.multipliedBy(4));
        assertThat(reconciler.reason()).get().asString().contains("unit u-1: not reconciled since");
    }

    /** The unit's row of unitas_reconcile_passes, its columns after the unit joined by spaces; empty when none. */
    private static String recordedPass(Node node) throws SQLException {
        try (Connection c = node.db().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT home, at, window_ms, ranges_compared, ranges_differing,"
                     + " ranges_pending, keys_repaired, failure FROM unitas_reconcile_passes WHERE unit = ?")) {
            ps.setString(1, UNIT);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return "";
                }
                StringBuilder row = new StringBuilder(rs.getString(1));
                for (int i = 2; i <= 8; i++) {
                    row.append(' ').append(rs.getString(i));
                }
                return row.toString();
            }
        }
    }

    private static void shipAll(Node from, Node to) {
        List<ChangeEnvelope> changes = from.changes();
        long position = to.applier().positions(from.region()).getOrDefault(UNIT, 0L);
        List<ChangeEnvelope> fresh = changes.stream().filter(c -> c.sequence() > position).toList();
        assertThat(to.applier().applyAll(fresh)).allMatch(ApplyResult::consumed);
    }

    private int differing(MergeDigests a, MergeDigests b) {
        int n = 0;
        for (String type : List.of("likes", "name")) {
            Map<Integer, RangeDigest> da = a.digests(UNIT, type, RANGES);
            n += RangeDiff.differing(da, b.digests(UNIT, type, RANGES)).size();
        }
        return n;
    }

    private static String keys(String prefix, int from, int to) {
        StringBuilder s = new StringBuilder();
        for (int i = from; i < to; i++) {
            s.append(i > from ? ", " : "").append('\'').append(prefix).append(i).append('\'');
        }
        return s.toString();
    }

    private static void setState(Node node, String type, String key, byte[] state) throws SQLException {
        try (Connection c = node.db().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "UPDATE unitas_merge_state SET state = ? WHERE entity_type = ? AND entity_key = ?")) {
            ps.setBytes(1, state);
            ps.setString(2, type);
            ps.setString(3, key);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static void insertStray(Node node, String type, String key, byte[] state) throws SQLException {
        try (Connection c = node.db().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "INSERT INTO unitas_merge_state (entity_type, entity_key, unit, state, updated_at)"
                     + " VALUES (?, ?, ?, ?, 0)")) {
            ps.setString(1, type);
            ps.setString(2, key);
            ps.setString(3, UNIT);
            ps.setBytes(4, state);
            ps.executeUpdate();
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
