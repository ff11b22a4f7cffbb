package io.unitas.data.remote;

import io.unitas.data.IdempotencyStore;

/** The contract on cn's own JDBC store (H2, the embedded default; PostgreSQL runs the same SQL). */
class JdbcIdempotencyStoreContractTest extends IdempotencyStoreContract {

    private final IdempotencyStore store = IdempotencyStore.embedded(CN, clock);

    @Override
    IdempotencyStore store() {
        return store;
    }
}
