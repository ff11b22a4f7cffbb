package io.unitas.data.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.core.health.UnitPositions;
import io.unitas.testkit.MutableClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Positions read from unitas's own tables on a real PostgreSQL: the outbox's kept changes and the applied rows. */
class JdbcUnitPositionsTest {

    private static final Instant T0 = Instant.parse("2026-11-30T14:00:00Z");
    private static final Region CN = Region.of("cn");

    private final Databases databases = Databases.postgres();
    private final MutableClock clock = new MutableClock(T0);

    @AfterEach
    void close() {
        databases.close();
    }

    private static long append(Outbox outbox, DataSource db, String unit) throws SQLException {
        try (Connection tx = db.getConnection()) {
            tx.setAutoCommit(false);
            long position = outbox.append(tx, unit, "wallet", "k", new byte[] {1}).sequence();
            tx.commit();
            return position;
        }
    }

    @Test
    void keptChangesPerUnit_andAppliedPositionsPerOrigin() throws SQLException {
        DataSource db = databases.newPostgres("cn");
        Outbox outbox = Outbox.jdbc(CN, db, clock);
        long first = append(outbox, db, "u-sh");
        clock.advance(java.time.Duration.ofMillis(250));
        append(outbox, db, "u-bj");
        clock.advance(java.time.Duration.ofMillis(250));
        long head = append(outbox, db, "u-sh");
        Ledger.execute(db, "INSERT INTO unitas_applied (origin, unit, applied_seq, applied_at) VALUES"
                           + " ('eu', 'u-de', 1000000000007, 0), ('us', 'u-ny', 42, 0)");
        clock.advance(java.time.Duration.ofSeconds(1));

        UnitPositions read = new JdbcUnitPositions(CN, db, clock).read();

        assertThat(read.known()).isTrue();
        assertThat(read.readAt()).isEqualTo(T0.plusMillis(1_500));
        assertThat(read.written().get("u-sh")).isEqualTo(new UnitPositions.Written(2, first, T0, head,
                                                                                   T0.plusMillis(500)));
        assertThat(read.written().get("u-bj").pending()).isEqualTo(1);
        assertThat(read.applied()).isEqualTo(Map.of(Region.of("eu"), Map.of("u-de", 1000000000007L),
                                                    Region.of("us"), Map.of("u-ny", 42L)));

        outbox.trim(head);
        assertThat(new JdbcUnitPositions(CN, db, clock).read().written()).isEmpty();
    }

    @Test
    void aDatabaseWithoutUnitasTables_isRefusedNamingTheTables() {
        DataSource db = databases.newPostgres("cn");
        assertThatThrownBy(() -> new JdbcUnitPositions(CN, db, clock).read())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cn: unitas_outbox, unitas_applied: cannot read positions: ")
                .hasMessageContaining("unitas_outbox");
    }
}
