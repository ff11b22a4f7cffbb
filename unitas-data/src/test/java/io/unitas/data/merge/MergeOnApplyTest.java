package io.unitas.data.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.OrMap;
import io.unitas.core.crdt.OrSet;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.Siblings;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The applier merges by declared policy, on real PostgreSQL (a database per region): cn, eu and us write the same
 * entities concurrently (a counter, an LWW register, an OR-set, an OR-map, a register that keeps siblings); their
 * changes reach a fresh region in each of the six orders of the three streams, and every copy ends the same, with
 * every increment and add, the latest LWW write, and the unmergeable register listed as siblings — metered, resolved
 * on record, and closed everywhere the resolution reaches.
 */
class MergeOnApplyTest {

    private static final String UNIT = "u-1";

    static final MergedEntity<PnCounter> LIKES = MergedEntity.of("likes", MergePolicy.counter(), Codec.counter())
            .materializedBy((tx, key, state) -> {
                try (PreparedStatement ps = tx.prepareStatement(
                        "INSERT INTO likes (post_id, n) VALUES (?, ?)"
                        + " ON CONFLICT (post_id) DO UPDATE SET n = EXCLUDED.n")) {
                    ps.setString(1, key);
                    ps.setLong(2, state.value());
                    ps.executeUpdate();
                }
            });
    static final MergedEntity<LwwRegister<String>> NAME =
            MergedEntity.of("name", MergePolicy.lastWriterWins(), Codec.lww(Codec.utf8()));
    static final MergedEntity<OrSet<String>> TAGS =
            MergedEntity.of("tags", MergePolicy.orSet(), Codec.orSet(Codec.utf8()));
    static final MergedEntity<OrMap<String, Long>> CART = MergedEntity.of(
            "cart", MergePolicy.orMap(),
            Codec.orMap(Codec.utf8(), Codec.of(v -> Long.toString(v).getBytes(), b -> Long.parseLong(new String(b))),
                        Math::max));
    static final MergedEntity<Siblings<String>> ADDRESS =
            MergedEntity.of("address", MergePolicy.siblings(), Codec.siblings(Codec.utf8()));

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final MergeRegions regions = new MergeRegions(List.of(LIKES, NAME, TAGS, CART, ADDRESS), clock);

    @AfterEach
    void close() {
        regions.close();
    }

    private Node node(String id) {
        Node node = regions.node(id);
        try (Connection c = node.db().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE likes (post_id VARCHAR(100) PRIMARY KEY, n BIGINT NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return node;
    }

    /** Each region's concurrent writes, none having seen another region's. */
    private static void writeConcurrently(Node node, int increment, long timestamp) {
        String r = node.region().id();
        node.write(LIKES, UNIT, "post-7", s -> s.orElse(PnCounter.zero()).add(r, increment));
        node.write(NAME, UNIT, "alice", s -> s.map(v -> v.write(r, "Alice of " + r, timestamp))
                                             .orElse(LwwRegister.initial(r, "Alice of " + r, timestamp)));
        node.write(TAGS, UNIT, "alice", s -> s.orElse(OrSet.empty()).add(r, "tag-" + r));
        node.write(CART, UNIT, "alice", s -> s.orElse(OrMap.empty(Math::max)).put(r, "book", (long) increment));
        node.write(ADDRESS, UNIT, "alice", s -> s.orElse(Siblings.empty()).write(r, r + " street 1"));
        node.write(LIKES, UNIT, "post-7", s -> s.orElse(PnCounter.zero()).add(r, increment)); // a second one
    }

    @Test
    void concurrentWrites_deliveredInEveryOrder_converge_withEveryIncrementAndAdd() throws SQLException {
        Node cn = node("cn");
        Node eu = node("eu");
        Node us = node("us");
        writeConcurrently(cn, 3, 1_000);
        writeConcurrently(eu, 5, 1_200); // the latest name
        writeConcurrently(us, 7, 900);
        List<List<ChangeEnvelope>> streams = List.of(cn.changes(), eu.changes(), us.changes());

        List<Node> receivers = new ArrayList<>();
        for (List<Integer> order : List.of(List.of(0, 1, 2), List.of(0, 2, 1), List.of(1, 0, 2), List.of(1, 2, 0),
                                           List.of(2, 0, 1), List.of(2, 1, 0))) {
            Node r = node("r" + receivers.size());
            for (int stream : order) {
                for (ChangeEnvelope change : streams.get(stream)) {
                    assertThat(r.applier().apply(change).outcome()).isEqualTo(ApplyResult.Outcome.APPLIED);
                }
                // a repeat of the whole stream changes nothing (the applier skips it)
                streams.get(stream).forEach(r.applier()::apply);
            }
            receivers.add(r);
        }

        for (Node r : receivers) {
            assertThat(r.store().read(LIKES, "post-7")).get().extracting(PnCounter::value)
                    .as("every increment of every region, once").isEqualTo(2L * (3 + 5 + 7));
            assertThat(materializedLikes(r)).as("the service's own table").isEqualTo(30);
            assertThat(r.store().read(NAME, "alice").get().value()).isEqualTo("Alice of eu");
            assertThat(r.store().read(TAGS, "alice").get().elements()).containsExactlyInAnyOrder("tag-cn", "tag-eu",
                                                                                                "tag-us");
            assertThat(r.store().read(CART, "alice").get().get("book")).isEqualTo(7L);
            assertThat(r.store().read(ADDRESS, "alice").get().values())
                    .containsExactlyInAnyOrder("cn street 1", "eu street 1", "us street 1");
            assertThat(r.store().openSiblings()).as("the cart's concurrent quantities read as the larger: no conflict")
                    .extracting(o -> Map.entry(o.type(), o.key())).containsExactly(Map.entry("address", "alice"));
            assertThat(r.gauge("unitas.data.merge.siblings.open", "address")).isEqualTo(1);
            assertThat(r.gauge("unitas.data.merge.siblings.open", "likes")).isEqualTo(0);
        }
        for (MergedEntity<?> entity : List.of(LIKES, NAME, TAGS, CART, ADDRESS)) {
            assertThat(receivers).extracting(r -> stateBytes(r, entity.type()))
                    .as("identical stored state of %s in all six orders", entity.type())
                    .allSatisfy(bytes -> assertThat(bytes).isEqualTo(stateBytes(receivers.get(0), entity.type())));
        }
    }

    @Test
    void unmergeableWrites_areKeptAsSiblings_listed_andResolvedOnRecordEverywhere() {
        Node cn = node("cn");
        Node eu = node("eu");
        cn.write(ADDRESS, UNIT, "alice", s -> s.orElse(Siblings.empty()).write("cn", "1 Main St"));
        eu.write(ADDRESS, UNIT, "alice", s -> s.orElse(Siblings.empty()).write("eu", "2 Rue Haute"));
        cn.changes().forEach(eu.applier()::apply);
        eu.changes().forEach(cn.applier()::apply);

        for (Node n : List.of(cn, eu)) {
            assertThat(n.store().openSiblings()).singleElement().satisfies(open -> {
                assertThat(open.key()).isEqualTo("alice");
                assertThat(open.unit()).isEqualTo(UNIT);
                assertThat(open.versions()).isEqualTo(2);
                assertThat(open.detail()).contains("1 Main St", "2 Rue Haute");
            });
            assertThat(n.gauge("unitas.data.merge.siblings.open", "address")).isEqualTo(1);
        }
        assertThatThrownBy(() -> cn.store().resolve(cn.outbox(), ADDRESS, "alice",
                                                    s -> Siblings.<String>empty().write("cn", "3 Elm St"), "ops",
                                                    "moved"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has not seen every sibling");
        assertThatThrownBy(() -> cn.store().resolve(cn.outbox(), ADDRESS, "bob", s -> s, "ops", "typo"))
                .hasMessage("address bob: no open siblings (expected: an entity listed in conflict)");

        clock.advance(Duration.ofMinutes(5));
        cn.store().resolve(cn.outbox(), ADDRESS, "alice", s -> s.resolve("cn", "2 Rue Haute"), "ops:lin",
                           "customer confirmed by phone");
        List<ChangeEnvelope> fromCn = cn.changes();
        eu.applier().apply(fromCn.get(fromCn.size() - 1));

        for (Node n : List.of(cn, eu)) {
            assertThat(n.store().read(ADDRESS, "alice").get().value()).isEqualTo("2 Rue Haute");
            assertThat(n.store().openSiblings()).isEmpty();
            assertThat(n.gauge("unitas.data.merge.siblings.open", "address")).isEqualTo(0);
        }
        assertThat(cn.store().resolutions("address", "alice")).singleElement().satisfies(r -> {
            assertThat(r.who()).isEqualTo("ops:lin");
            assertThat(r.reason()).isEqualTo("customer confirmed by phone");
            assertThat(r.was()).contains("1 Main St", "2 Rue Haute");
            assertThat(r.chosen()).contains("2 Rue Haute");
            assertThat(r.at()).isEqualTo(clock.instant());
        });
    }

    @Test
    void aPayloadThatIsNotTheDeclaredState_stopsItsStream_withOneLine() {
        Node cn = node("cn");
        Node eu = node("eu");
        cn.write(NAME, UNIT, "alice", s -> LwwRegister.initial("cn", "Alice", 1));
        ChangeEnvelope asLikes = cn.changes().get(0);
        ChangeEnvelope wrong = new ChangeEnvelope(asLikes.unit(), asLikes.origin(), asLikes.sequence(),
                                                  asLikes.previous(), "likes", asLikes.key(), asLikes.payload(),
                                                  asLikes.writtenAt());

        ApplyResult result = eu.applier().apply(wrong);

        assertThat(result.outcome()).isEqualTo(ApplyResult.Outcome.REJECTED);
        assertThat(result.reason()).contains("expected: a PN-counter");
    }

    private static long materializedLikes(Node node) throws SQLException {
        try (Connection c = node.db().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT n FROM likes WHERE post_id = 'post-7'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static byte[] stateBytes(Node node, String type) {
        try (Connection c = node.db().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT state FROM unitas_merge_state WHERE entity_type = ?")) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBytes(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

}
