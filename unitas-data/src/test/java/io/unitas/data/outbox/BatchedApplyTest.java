package io.unitas.data.outbox;

import static io.unitas.data.outbox.ThreeRegions.CN;
import static io.unitas.data.outbox.ThreeRegions.EU;
import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.data.outbox.ApplyResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several of a unit's changes applied in one transaction: repeats skipped, a missing predecessor holds, a refused
 * change stops the stream after those before it are applied. On PostgreSQL.
 */
class BatchedApplyTest {

    private final ThreeRegions regions = new ThreeRegions(Databases.postgres());
    private final ChangeApplier eu = regions.applier.get(EU);

    @AfterEach
    void close() {
        regions.close();
    }

    /** {@code n} changes of u-1 written in cn, chained as the shipper chains them. */
    private List<ChangeEnvelope> written(long... amounts) {
        Ledger cn = regions.ledger(CN);
        List<ChangeEnvelope> changes = new ArrayList<>();
        long previous = 0;
        for (int i = 0; i < amounts.length; i++) {
            ChangeEnvelope change = cn.record("u-1", "e-" + (i + 1), "alice", amounts[i]).withPrevious(previous);
            changes.add(change);
            previous = change.sequence();
        }
        return changes;
    }

    @Test
    void aUnitsChanges_applyInOneBatch_andARepeatedBatchIsAllDuplicates() {
        List<ChangeEnvelope> changes = written(1, 2, 3);

        assertThat(eu.applyAll(changes)).extracting(ApplyResult::outcome)
                .containsExactly(Outcome.APPLIED, Outcome.APPLIED, Outcome.APPLIED);
        assertThat(eu.applyAll(changes)).extracting(ApplyResult::outcome)
                .containsExactly(Outcome.DUPLICATE, Outcome.DUPLICATE, Outcome.DUPLICATE);

        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1", "e-2", "e-3");
        assertThat(eu.positions(CN)).containsExactly(Map.entry("u-1", changes.get(2).sequence()));
    }

    @Test
    void aBatchMissingAChange_appliesUpToTheGap_andHolds() {
        List<ChangeEnvelope> changes = written(1, 2, 3);

        List<ApplyResult> results = eu.applyAll(List.of(changes.get(0), changes.get(2)));

        assertThat(results).extracting(ApplyResult::outcome).containsExactly(Outcome.APPLIED, Outcome.GAP);
        assertThat(results.get(1).reason()).contains("follows #" + changes.get(1).sequence());
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1");
        assertThat(eu.applyAll(changes.subList(1, 3))).extracting(ApplyResult::outcome)
                .containsExactly(Outcome.APPLIED, Outcome.APPLIED);
        assertThat(eu.stopped()).isEmpty();
    }

    @Test
    void aRefusedChangeInABatch_stopsTheStreamThere_afterApplyingThoseBeforeIt() {
        Ledger.execute(regions.db.get(EU), "ALTER TABLE ledger_entries ADD CONSTRAINT entries_below_a_million"
                                           + " CHECK (amount < 1000000)");
        List<ChangeEnvelope> changes = written(1, 5_000_000, 3);

        List<ApplyResult> results = eu.applyAll(changes);

        assertThat(results).extracting(ApplyResult::outcome).containsExactly(Outcome.APPLIED, Outcome.REJECTED);
        assertThat(results.get(1).position()).isEqualTo(changes.get(0).sequence());
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("e-1");
        assertThat(eu.positions(CN)).containsEntry("u-1", changes.get(0).sequence());
        assertThat(eu.stopped()).singleElement().satisfies(s -> {
            assertThat(s.refused()).isEqualTo(changes.get(1).sequence());
            assertThat(s.reason()).contains("entries_below_a_million");
        });
    }

    @Test
    void aBatchOfSeveralUnits_appliesEachInOneGo_andARefusedChangeStopsOnlyItsUnit() {
        Ledger.execute(regions.db.get(EU), "ALTER TABLE ledger_entries ADD CONSTRAINT entries_below_a_million"
                                           + " CHECK (amount < 1000000)");
        Ledger cn = regions.ledger(CN);
        ChangeEnvelope a1 = cn.record("u-1", "a-1", "alice", 1);
        ChangeEnvelope b1 = cn.record("u-2", "b-1", "bob", 1);
        ChangeEnvelope a2 = cn.record("u-1", "a-2", "alice", 5_000_000).withPrevious(a1.sequence());
        ChangeEnvelope b2 = cn.record("u-2", "b-2", "bob", 2).withPrevious(b1.sequence());
        ChangeEnvelope c1 = cn.record("u-3", "c-1", "carol", 1);

        assertThat(eu.applyAll(List.of(a1, b1, c1))).extracting(ApplyResult::outcome)
                .containsExactly(Outcome.APPLIED, Outcome.APPLIED, Outcome.APPLIED);
        List<ApplyResult> results = eu.applyAll(List.of(a2, b2));

        assertThat(results).extracting(r -> r.change().key() + " " + r.outcome())
                .containsExactlyInAnyOrder("a-2 REJECTED", "b-2 APPLIED");
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("a-1", "b-1", "b-2", "c-1");
        assertThat(eu.positions(CN)).containsEntry("u-1", a1.sequence()).containsEntry("u-2", b2.sequence())
                .containsEntry("u-3", c1.sequence());
        assertThat(eu.stopped()).extracting(StoppedStream::unit).containsExactly("u-1");
    }

    /** A change of {@code key} (an entry already there) setting its amount, appended in cn after {@code previous}. */
    private ChangeEnvelope rewrite(String unit, String key, long amount, long previous) {
        try (java.sql.Connection tx = regions.db.get(CN).getConnection()) {
            tx.setAutoCommit(false);
            ChangeEnvelope change = regions.outbox.get(CN).append(tx, unit, Ledger.ENTRY, key,
                    ("alice|" + amount).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            tx.commit();
            return change.withPrevious(previous);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Test
    void manyUnitsInOneBatch_goThroughTheHandlersBatch_andRepeatsInsideAndAcrossBatchesApplyOnce() {
        Ledger cn = regions.ledger(CN);
        ChangeEnvelope a1 = cn.record("u-1", "a-1", "alice", 1);
        ChangeEnvelope b1 = cn.record("u-2", "b-1", "bob", 1);
        ChangeEnvelope a2 = rewrite("u-1", "a-1", 2, a1.sequence());
        ChangeEnvelope b2 = cn.record("u-2", "b-2", "bob", 2).withPrevious(b1.sequence());
        ChangeEnvelope a3 = rewrite("u-1", "a-1", 3, a2.sequence());
        long batchedBefore = Ledger.BATCHED.get();

        List<ApplyResult> results = eu.applyAll(List.of(a1, b1, a1, a2, b2, b1, a2, a3));

        assertThat(results).extracting(r -> r.change().sequence() + " " + r.outcome()).containsExactly(
                a1.sequence() + " APPLIED", a1.sequence() + " DUPLICATE", a2.sequence() + " APPLIED",
                a2.sequence() + " DUPLICATE", a3.sequence() + " APPLIED",
                b1.sequence() + " APPLIED", b2.sequence() + " APPLIED", b1.sequence() + " DUPLICATE");
        assertThat(Ledger.BATCHED.get() - batchedBefore).as("changes written by the handler's batch").isEqualTo(5);
        // u-1's three changes of one entry were written in their order: the last one's amount stays
        assertThat(Ledger.count(regions.db.get(EU), "SELECT amount FROM ledger_entries WHERE entry_id = 'a-1'"))
                .isEqualTo(3);

        List<ApplyResult> again = eu.applyAll(List.of(a3, b2, a2, b1));

        assertThat(again).extracting(ApplyResult::outcome).containsOnly(Outcome.DUPLICATE);
        assertThat(Ledger.BATCHED.get() - batchedBefore).as("nothing written again").isEqualTo(5);
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("a-1", "b-1", "b-2");
        assertThat(eu.positions(CN)).containsEntry("u-1", a3.sequence()).containsEntry("u-2", b2.sequence());
        assertThat(eu.stopped()).isEmpty();
    }

    @Test
    void aUnitsChangesOutOfOrderInABatch_holdAtTheFirstThatDoesNotFollow_whileAnotherUnitApplies() {
        Ledger cn = regions.ledger(CN);
        ChangeEnvelope a1 = cn.record("u-1", "a-1", "alice", 1);
        ChangeEnvelope a2 = rewrite("u-1", "a-1", 2, a1.sequence());
        ChangeEnvelope b1 = cn.record("u-2", "b-1", "bob", 1);

        List<ApplyResult> results = eu.applyAll(List.of(a2, b1, a1));

        assertThat(results).extracting(r -> r.change().sequence() + " " + r.outcome())
                .containsExactly(a2.sequence() + " GAP", b1.sequence() + " APPLIED");
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("b-1");
        assertThat(eu.applyAll(List.of(a1, a2))).extracting(ApplyResult::outcome)
                .containsExactly(Outcome.APPLIED, Outcome.APPLIED);
        assertThat(Ledger.count(regions.db.get(EU), "SELECT amount FROM ledger_entries WHERE entry_id = 'a-1'"))
                .isEqualTo(2);
    }

    @Test
    void aRefusedChangeInAManyUnitBatch_stopsOnlyItsUnit_withItsReason_andTheOthersApplyInFull() {
        Ledger.execute(regions.db.get(EU), "ALTER TABLE ledger_entries ADD CONSTRAINT entries_below_a_million"
                                           + " CHECK (amount < 1000000)");
        Ledger cn = regions.ledger(CN);
        ChangeEnvelope a1 = cn.record("u-1", "a-1", "alice", 1);
        ChangeEnvelope b1 = cn.record("u-2", "b-1", "bob", 1);
        ChangeEnvelope a2 = cn.record("u-1", "a-2", "alice", 5_000_000).withPrevious(a1.sequence());
        ChangeEnvelope b2 = cn.record("u-2", "b-2", "bob", 2).withPrevious(b1.sequence());
        ChangeEnvelope a3 = cn.record("u-1", "a-3", "alice", 3).withPrevious(a2.sequence());
        ChangeEnvelope c1 = cn.record("u-3", "c-1", "carol", 1);

        List<ApplyResult> results = eu.applyAll(List.of(a1, b1, a2, b2, a3, c1, b1));

        assertThat(results).extracting(r -> r.change().key() + " " + r.outcome()).containsExactlyInAnyOrder(
                "a-1 APPLIED", "a-2 REJECTED", "b-1 APPLIED", "b-2 APPLIED", "b-1 DUPLICATE", "c-1 APPLIED");
        assertThat(Ledger.entries(regions.db.get(EU))).containsExactly("a-1", "b-1", "b-2", "c-1");
        assertThat(eu.positions(CN)).containsEntry("u-1", a1.sequence()).containsEntry("u-2", b2.sequence())
                .containsEntry("u-3", c1.sequence());
        assertThat(eu.stopped()).singleElement().satisfies(s -> {
            assertThat(s.unit()).isEqualTo("u-1");
            assertThat(s.refused()).isEqualTo(a2.sequence());
            assertThat(s.reason()).contains("entries_below_a_million");
        });
    }
}
