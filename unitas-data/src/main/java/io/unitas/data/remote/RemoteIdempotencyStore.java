package io.unitas.data.remote;

import java.util.Objects;

import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.remote.IdempotencyWire.Operation;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;

/**
 * The idempotency records of one unit in its home region's store, reached over the network through a
 * {@link HomeReadServer}: the same answers as the home's own store, or {@code UNAVAILABLE} naming why when the home
 * cannot answer by the client's deadline. Each call blocks its thread until then, at most.
 */
final class RemoteIdempotencyStore implements IdempotencyStore {

    private final ArmeriaHomeReadClient client;
    private final Region home;
    private final String unit;

    RemoteIdempotencyStore(ArmeriaHomeReadClient client, Region home, String unit) {
        this.client = client;
        this.home = home;
        this.unit = unit;
    }

    @Override
    public StoreResult<IdempotencyRecord> idempotencyRecord(String key) {
        return record(call(Operation.RECORD, key, null));
    }

    @Override
    public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
        if (!record.inFlight()) {
            throw new IllegalArgumentException("record of " + record.key() + ": completed (expected: in flight)");
        }
        // With a claim token, a claim whose answer was lost is sent again: the home grants its own claim again.
        return record(client.idempotencyCall(home, unit, Operation.CLAIM, record.key(),
                                             IdempotencyWire.bytes(IdempotencyWire.record(record)), false,
                                             !record.claimToken().isEmpty()).toCompletableFuture().join());
    }

    @Override
    public StoreResult<IdempotencyRecord> complete(String key, StoredResponse response) {
        Objects.requireNonNull(response, "response");
        return record(call(Operation.COMPLETE, key, IdempotencyWire.bytes(IdempotencyWire.response(response))));
    }

    @SuppressWarnings("unchecked")
    @Override
    public StoreResult<String> release(String key) {
        return (StoreResult<String>) call(Operation.RELEASE, key, null);
    }

    private StoreResult<?> call(Operation op, String key, byte[] body) {
        return client.idempotencyCall(home, unit, op, key, body, false).toCompletableFuture().join();
    }

    @SuppressWarnings("unchecked")
    static StoreResult<IdempotencyRecord> record(StoreResult<?> result) {
        return (StoreResult<IdempotencyRecord>) result;
    }

    @Override
    public String toString() {
        return "RemoteIdempotencyStore{" + home + ", unit " + unit + '}';
    }
}
