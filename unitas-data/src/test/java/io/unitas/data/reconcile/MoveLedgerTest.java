package io.unitas.data.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which delivered changes crossed a move of their unit: the rule that keeps the old home from overwriting. */
class MoveLedgerTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    private static Instant at(long seconds) {
        return T.plusSeconds(seconds);
    }

    @Test
    void theFirstHomeSeen_isNoMove_andAChangeOfAUnitThatNeverMoved_crossedNothing() {
        MoveLedger ledger = new MoveLedger();
        assertThat(ledger.observe("u-cn", CN, at(0))).isEmpty();
        assertThat(ledger.observe("u-cn", CN, at(1))).isEmpty();

        assertThat(ledger.crossed("u-cn", CN, at(0))).isEmpty();
    }

    @Test
    void aChangeTheOldHomeWroteBeforeThePromotion_deliveredAfterIt_crossedIt() {
        MoveLedger ledger = new MoveLedger();
        ledger.observe("u-cn", CN, at(0));
        UnitMove promotion = ledger.observe("u-cn", EU, at(10)).orElseThrow();

        assertThat(ledger.crossed("u-cn", CN, at(5))).contains(promotion);
        assertThat(ledger.crossed("u-cn", EU, at(12))).as("the new home's own changes are ordinary").isEmpty();
    }

    @Test
    void onceTheUnitIsBackHome_itsNewChangesAreOrdinary_butThoseWrittenWhileAwayStillCrossed() {
        UnitMove away = new UnitMove("u-cn", CN, EU, at(10));
        List<UnitMove> moves = List.of(away, new UnitMove("u-cn", EU, CN, at(30)));

        assertThat(MoveLedger.crossed(moves, CN, at(20))).contains(away);
        assertThat(MoveLedger.crossed(moves, CN, at(31))).isEmpty();
    }

    @Test
    void aSecondPromotion_isTheOneAChangeWrittenAfterTheFirstReturnCrossed() {
        UnitMove second = new UnitMove("u-cn", CN, EU, at(40));
        List<UnitMove> moves = List.of(new UnitMove("u-cn", CN, EU, at(10)), new UnitMove("u-cn", EU, CN, at(30)),
                                       second);

        assertThat(MoveLedger.crossed(moves, CN, at(35))).isEqualTo(Optional.of(second));
    }
}
