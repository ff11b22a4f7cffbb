package io.unitas.data.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Conflicts and duplicates after a promotion, as operators see them: meters, a health reason, log lines. */
class ReconciliationsTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Reconciliations counts = new Reconciliations(registry);
    private final List<String> logged = new ArrayList<>();
    private final Logger log = Logger.getLogger(Reconciliations.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getLevel() + " " + java.text.MessageFormat.format(
                    record.getMessage().replace("{}", "{0}"), record.getParameters()));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void listen() {
        log.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        log.removeHandler(capture);
    }

    private static Conflict conflict(String changeId, String unit, String kind, String key) {
        return new Conflict(changeId, unit, kind, key, CN, EU, "old home has a, new home has b", T);
    }

    private double open(String kind) {
        return registry.get("unitas.data.reconcile.conflicts.open").tag("kind", kind).gauge().value();
    }

    @Test
    void conflictsOpen_areCountedByKind_untilResolved() {
        counts.decided(Outcome.diverged("differs"));
        counts.conflict(conflict("cn#1", "u-cn", "ACCOUNT", "alice"));
        counts.decided(Outcome.diverged("differs"));
        counts.conflict(conflict("cn#2", "u-cn", "ACCOUNT", "bob"));
        counts.decided(Outcome.diverged("differs"));
        counts.conflict(conflict("cn#3", "u-cn", "SESSION", "s-1"));

        assertThat(open("ACCOUNT")).isEqualTo(2.0);
        assertThat(open("SESSION")).isEqualTo(1.0);
        assertThat(registry.get("unitas.data.reconcile.conflicts").tag("kind", "ACCOUNT").counter().count())
                .isEqualTo(2.0);

        assertThat(counts.resolved("cn#1")).isTrue();
        assertThat(counts.resolved("cn#1")).as("already resolved").isFalse();
        assertThat(open("ACCOUNT")).isEqualTo(1.0);
        assertThat(counts.status().openByKind()).isEqualTo(Map.of("ACCOUNT", 1L, "SESSION", 1L));
        assertThat(counts.report().conflicts()).as("every conflict found stays counted").isEqualTo(3);
    }

    @Test
    void anOpenConflict_isAHealthReasonNamingUnitAndKey_untilResolved() {
        assertThat(counts.status().clear()).isTrue();

        counts.conflict(conflict("cn#7", "u-cn", "ACCOUNT", "alice"));

        ReconcileStatus status = counts.status();
        assertThat(status.clear()).isFalse();
        assertThat(status.open()).isEqualTo(1);
        assertThat(status.reason()).startsWith("1 reconciliation conflict open {ACCOUNT=1}")
                .contains("unit u-cn ACCOUNT alice", "change cn#7 of cn kept aside, eu's version stands");

        counts.resolved("cn#7");
        assertThat(counts.status().clear()).isTrue();
        assertThat(counts.status().reason()).isEmpty();
    }

    @Test
    void eachConflict_isLoggedWithItsUnitAndKey() {
        counts.conflict(conflict("cn#7", "u-cn", "ACCOUNT", "alice"));

        assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("WARNING reconciliation conflict:")
                .contains("unit u-cn ACCOUNT alice", "cn#7"));
    }

    @Test
    void duplicatesCompensated_areMetered() {
        Compensation refund = new Compensation("o-2", "o-1", "k-1", "alice", "refund", T);
        counts.decided(Outcome.duplicate("o-2", "o-1"));
        counts.compensated(refund);

        assertThat(registry.get("unitas.data.reconcile.duplicates.detected").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("unitas.data.reconcile.duplicates.compensated").counter().count()).isEqualTo(1.0);
        assertThat(counts.report().uncompensated()).isZero();
    }

    @Test
    void aFailedReconciliation_isMeteredLoggedOnce_andAReasonUntilTheNextDecision() {
        counts.failed("u-cn", "ORDER", "cn#9", "eu: UNAVAILABLE connection refused");
        counts.failed("u-cn", "ORDER", "cn#9", "eu: UNAVAILABLE connection refused");

        assertThat(registry.get("unitas.data.reconcile.failures").tag("kind", "ORDER").counter().count())
                .isEqualTo(2.0);
        assertThat(logged.stream().filter(l -> l.contains("reconciliation failed"))).hasSize(1)
                .allSatisfy(l -> assertThat(l).contains("unit u-cn ORDER change cn#9"));
        assertThat(counts.status().reason()).contains("reconciliation failing: unit u-cn ORDER change cn#9");
        assertThat(counts.status().failures()).isEqualTo(2);

        counts.decided(Outcome.adopt("o-9"));
        assertThat(counts.status().clear()).isTrue();
    }

    @Test
    void conflictsAStoreStillHolds_areOpenAfterARestart_withoutBeingCountedAgain() {
        counts.reopen(List.of(conflict("cn#1", "u-cn", "ACCOUNT", "alice"),
                              conflict("cn#1", "u-cn", "ACCOUNT", "alice")));

        assertThat(open("ACCOUNT")).isEqualTo(1.0);
        assertThat(counts.report().conflicts()).isZero();
        assertThat(counts.status().clear()).isFalse();
    }
}
