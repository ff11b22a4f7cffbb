package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/** {@link Idempotency} with records in the home unit's store, claimed atomically there before the action runs. */
final class HomeUnitIdempotency implements Idempotency {

    private final Region region;
    private final HomeResolver homes;
    private final BiFunction<Region, String, Optional<IdempotencyStore>> stores;
    private final Clock clock;
    private final Duration ttl;
    private final Duration retryAfter;

    HomeUnitIdempotency(Region region, HomeResolver homes,
                        BiFunction<Region, String, Optional<IdempotencyStore>> stores,
                        Clock clock, Duration ttl, Duration retryAfter) {
        this.region = region;
        this.homes = homes;
        this.stores = stores;
        this.clock = clock;
        this.ttl = ttl;
        this.retryAfter = retryAfter;
    }

    @Override
    public IdempotencyResult execute(String key, String owner, String fingerprint, Supplier<StoredResponse> action) {
        return execute(key, owner, fingerprint, ttl, action);
    }

    @Override
    public IdempotencyResult execute(String key, String owner, String fingerprint, Duration ttl,
                                     Supplier<StoredResponse> action) {
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl of idempotency key '" + key + "': " + ttl + " (expected: > 0)");
        }
        Home at = homes.home(owner);
        if (!at.found()) {
            return IdempotencyResult.rejected(new DataProblem(
                    DataProblem.Type.NO_UNIT, "idempotency key '" + key + "': " + at.problem(), Duration.ZERO));
        }
        Region home = at.region();
        Optional<IdempotencyStore> homeStore = storeOf(home, at.unit());
        StoreResult<IdempotencyRecord> existing = homeStore.map(s -> s.idempotencyRecord(key))
                .orElseGet(() -> StoreResult.unavailable(home, "no route to its store"));
        if (existing.isOk()) {
            return answer(existing.value(), owner, fingerprint);
        }
        if (existing.status() != StoreResult.Status.NOT_FOUND) {
            return fromReplica(key, owner, home, at.unit(), fingerprint, existing.detail());
        }
        Instant now = clock.instant();
        IdempotencyStore store = homeStore.orElseThrow();
        // A fresh claim token per claim: the same claim sent again after its answer was lost is granted again.
        StoreResult<IdempotencyRecord> claimed = store.claim(IdempotencyRecord.inFlight(
                key, owner, fingerprint, now, now.plus(ttl), IdempotencyRecord.newClaimToken()));
        if (claimed.status() == StoreResult.Status.CONFLICT) {
            return answer(claimed.value(), owner, fingerprint);
        }
        if (!claimed.isOk()) {
            return notReady("idempotency key '" + key + "' cannot be recorded in home region " + home + " ("
                            + claimed.detail() + ")");
        }
        StoredResponse response;
        try {
            response = Objects.requireNonNull(action.get(), "response of the action for key '" + key + "'");
        } catch (RuntimeException | Error e) {
            store.release(key);
            throw e;
        }
        // If the home turned read-only meanwhile, the record stays in flight: retries get 409 until its TTL ends,
        // which is safe, and the response is still the caller's.
        store.complete(key, response);
        return new IdempotencyResult(IdempotencyResult.Outcome.EXECUTED, response, null);
    }

    /** The home cannot be read: a completed record replicated here can still be replayed; nothing else is safe. */
    private IdempotencyResult fromReplica(String key, String owner, Region home, String unit, String fingerprint,
                                          String why) {
        if (!region.equals(home)) {
            StoreResult<IdempotencyRecord> replica = storeOf(region, unit).map(s -> s.idempotencyRecord(key))
                    .orElseGet(() -> StoreResult.unavailable(region, "no route to its store"));
            if (replica.isOk() && !replica.value().inFlight()) {
                return answer(replica.value(), owner, fingerprint);
            }
        }
        return notReady("idempotency key '" + key + "': home region " + home + " cannot be read (" + why + ")");
    }

    private Optional<IdempotencyStore> storeOf(Region r, String unit) {
        return Objects.requireNonNull(stores.apply(r, unit), "store of " + r);
    }

    private IdempotencyResult answer(IdempotencyRecord record, String owner, String fingerprint) {
        if (!record.userId().equals(owner) || !record.payloadHash().equals(fingerprint)) {
            return IdempotencyResult.rejected(new DataProblem(
                    DataProblem.Type.IDEMPOTENCY_KEY_REUSED, "idempotency key '" + record.key()
                    + "' was used for a different request (expected: the same owner and request fingerprint)",
                    Duration.ZERO));
        }
        if (record.inFlight()) {
            return IdempotencyResult.rejected(new DataProblem(
                    DataProblem.Type.IDEMPOTENCY_KEY_IN_FLIGHT, "idempotency key '" + record.key()
                    + "' is still being processed", retryAfter));
        }
        return new IdempotencyResult(IdempotencyResult.Outcome.REPLAYED, record.response(), null);
    }

    private IdempotencyResult notReady(String detail) {
        return IdempotencyResult.rejected(new DataProblem(DataProblem.Type.DATA_NOT_READY, detail, retryAfter));
    }
}
