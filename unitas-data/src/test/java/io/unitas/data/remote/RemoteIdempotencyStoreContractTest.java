package io.unitas.data.remote;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.unitas.data.IdempotencyStore;

/**
 * The contract on cn's JDBC store reached from eu over HTTP/2: a real {@link HomeReadServer} serving cn's records and
 * a real {@link HomeReadClient}. One server and client for the class; each case gets a fresh store behind them.
 */
class RemoteIdempotencyStoreContractTest extends IdempotencyStoreContract {

    private static final String TOKEN = "utk_idempotency-contract";
    /** The store the server runs each case against (each case brings its own clock). */
    private static volatile IdempotencyStore cnStore;
    private static HomeReadServer cn;
    private static HomeReadClient eu;

    @BeforeAll
    static void start() {
        cn = HomeReadServer.builder().region(CN).owns("u-cn"::equals).token(TOKEN)
                           .idempotency(new Delegating()).meterRegistry(new SimpleMeterRegistry()).start();
        eu = HomeReadClient.builder().endpoint(CN, cn.uri()).token(TOKEN).deadline(Duration.ofSeconds(30))
                           .hedgeAfter(Duration.ofSeconds(10)).meterRegistry(new SimpleMeterRegistry()).build();
    }

    @AfterAll
    static void stop() {
        eu.close();
        cn.close();
    }

    @BeforeEach
    void freshStore() {
        cnStore = IdempotencyStore.embedded(CN, clock);
    }

    @Override
    IdempotencyStore store() {
        return eu.idempotency(CN, "u-cn");
    }

    /** cn's store of the running case. */
    private static final class Delegating implements IdempotencyStore {
        @Override
        public io.unitas.data.store.StoreResult<io.unitas.data.store.IdempotencyRecord> idempotencyRecord(String key) {
            return cnStore.idempotencyRecord(key);
        }

        @Override
        public io.unitas.data.store.StoreResult<io.unitas.data.store.IdempotencyRecord> claim(
                io.unitas.data.store.IdempotencyRecord record) {
            return cnStore.claim(record);
        }

        @Override
        public io.unitas.data.store.StoreResult<io.unitas.data.store.IdempotencyRecord> complete(
                String key, io.unitas.data.store.StoredResponse response) {
            return cnStore.complete(key, response);
        }

        @Override
        public io.unitas.data.store.StoreResult<String> release(String key) {
            return cnStore.release(key);
        }
    }
}
