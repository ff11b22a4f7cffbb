package io.unitas.spring;

import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyStore;

/**
 * What the starter could make of {@code unitas.idempotency.*} in this application: the idempotency and this region's
 * store (which the home-read server serves to the other regions), or the one line saying why there is none.
 *
 * @param idempotency the idempotency, or {@code null}
 * @param local       this region's store, or {@code null}
 * @param problem     why there is none (naming the property), or {@code null}
 */
record IdempotencySetup(Idempotency idempotency, IdempotencyStore local, String problem) {

    static IdempotencySetup off(String problem) {
        return new IdempotencySetup(null, null, problem);
    }
}
