package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.data.internal.JdbcIdempotencyStore;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.time.Clock;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * Where one region keeps Idempotency-Key records: the storage behind {@link Idempotency}, one per region. A service
 * keeps its records in the same database as its own tables, so a completed response and the effect it describes
 * share a region and a fate. Expected conditions come back as {@link StoreResult} values (read-only, unavailable,
 * taken), never as exceptions; an expired record answers as absent.
 */
public interface IdempotencyStore {

    /**
     * A store in a fresh in-memory H2 database of its own, for tests and embedded regions; its data is gone when
     * the process ends. H2 ({@code com.h2database:h2}) is an optional dependency of unitas-data: the caller brings it.
     */
    static IdempotencyStore embedded(Region region, Clock clock) {
        if (IdempotencyStore.class.getClassLoader().getResource("org/h2/jdbcx/JdbcDataSource.class") == null) {
            throw new IllegalStateException("IdempotencyStore.embedded(" + region.id() + "): H2 is not on the class"
                                            + " path (expected: com.h2database:h2 as a dependency of the application)");
        }
        JdbcDataSource h2 = new JdbcDataSource();
        // DB_CLOSE_DELAY=-1 keeps the in-memory database between connections for the life of the process.
        h2.setURL("jdbc:h2:mem:unitas-idempotency-" + region.id() + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return jdbc(region, h2, clock);
    }

    /**
     * A store in the table {@code unitas_idempotency} of the service's own database (PostgreSQL, or H2 when
     * embedded), beside its own tables; unitas's tables are migrated first ({@link UnitasSchema}).
     */
    static IdempotencyStore jdbc(Region region, DataSource dataSource, Clock clock) {
        return new JdbcIdempotencyStore(region, dataSource, clock);
    }

    /** The record of {@code key}, {@code NOT_FOUND} when absent or expired. */
    StoreResult<IdempotencyRecord> idempotencyRecord(String key);

    /**
     * Atomically claims {@code record.key()} with an in-flight record: {@code OK} when it was free or its record had
     * expired, {@code OK} with the stored record when that is this same claim sent again (in flight under the same
     * non-empty claim token, owner and fingerprint, {@link IdempotencyRecord#heldBy}: its first answer was lost),
     * {@code CONFLICT} with the stored record when another holds it (a different token, or none).
     */
    StoreResult<IdempotencyRecord> claim(IdempotencyRecord record);

    /** Stores the response of the in-flight record of {@code key}; {@code NOT_FOUND} when there is none. */
    StoreResult<IdempotencyRecord> complete(String key, StoredResponse response);

    /** Deletes the record of {@code key} so the key can be used again (its request failed without effect). */
    StoreResult<String> release(String key);
}
