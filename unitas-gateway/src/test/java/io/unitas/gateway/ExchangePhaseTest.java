package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.gateway.ProxyHandler.Phase;

/** The exchange's legal moves, written out as a table: every other move is refused. */
class ExchangePhaseTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "CONNECTING       | AWAITING_ANSWER CONNECTING DONE",
            "AWAITING_ANSWER  | CONNECTING SKIPPING_INTERIM DISCARDING STREAMING DONE",
            "SKIPPING_INTERIM | AWAITING_ANSWER CONNECTING DONE",
            "DISCARDING       | CONNECTING DONE",
            "STREAMING        | DONE",
            "DONE             | ''",
    })
    void theLegalMoves(Phase from, String to) {
        Set<Phase> legal = to.isBlank() ? EnumSet.noneOf(Phase.class)
                                        : Arrays.stream(to.trim().split(" +")).map(Phase::valueOf)
                                                .collect(Collectors.toCollection(() -> EnumSet.noneOf(Phase.class)));
        for (Phase next : Phase.values()) {
            assertThat(from.mayMoveTo(next)).as("%s -> %s", from, next).isEqualTo(legal.contains(next));
        }
    }
}
