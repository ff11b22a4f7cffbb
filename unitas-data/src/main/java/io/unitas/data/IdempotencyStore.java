package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * Where one region keeps Idempotency-Key records: the storage behind {@link Idempotency}, one per region. A service
 * keeps its records in the same database as its own tables, so a completed response and the effect it describes
 * share a region and a fate. Expected conditions come back as {@link StoreResult} values (read-only, unavailable,
 * taken), never as exceptions; an expired record answers as absent.
 */
public interface IdempotencyStore {

    /**
     * A store in a fresh in-memory H2 database of its own, for tests and embedded regions; its data is gone when
     * the process ends.
     */
    static IdempotencyStore embedded(Region region, Clock clock) {
        return EmbeddedIdempotencyStore.inMemory(region, clock);
    }

    /**
     * A store in the table {@code unitas_idempotency} of an embedded database the service already has (H2), created
     * when absent, beside the service's own tables.
     */
    static IdempotencyStore embedded(Region region, DataSource dataSource, Clock clock) {
        return new EmbeddedIdempotencyStore(region, dataSource, clock);
    }

    /** The record of {@code key}, {@code NOT_FOUND} when absent or expired. */
    StoreResult<IdempotencyRecord> idempotencyRecord(String key);

    /**
     * Atomically claims {@code record.key()} with an in-flight record: {@code OK} when it was free or its record had
     * expired, {@code CONFLICT} with the stored record when another holds it.
     */
    StoreResult<IdempotencyRecord> claim(IdempotencyRecord record);

    /** Stores the response of the in-flight record of {@code key}; {@code NOT_FOUND} when there is none. */
    StoreResult<IdempotencyRecord> complete(String key, StoredResponse response);

    /** Deletes the record of {@code key} so the key can be used again (its request failed without effect). */
    StoreResult<String> release(String key);
}
