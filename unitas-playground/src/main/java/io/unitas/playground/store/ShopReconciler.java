package io.unitas.playground.store;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import io.unitas.data.reconcile.Compensation;
import io.unitas.data.reconcile.Compensator;
import io.unitas.data.reconcile.Conflict;
import io.unitas.data.reconcile.MoveLedger;
import io.unitas.data.reconcile.Outcome;
import io.unitas.data.reconcile.ReconcilePolicy;
import io.unitas.data.reconcile.ReconcileStatus;
import io.unitas.data.reconcile.Reconciliations;
import io.unitas.data.reconcile.UnitMove;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The shop's reconciliation: a change that crossed a move of its unit ({@link MoveLedger#crossed}) is decided in the
 * unit's new home, never applied over it; the other regions count it applied and get the new home's decision through
 * its own log. Per kind: an account or a session is adopted where the new home has none, else kept aside as a
 * {@link Conflict} when it differs; a cart (an OR-set CRDT) merges; an idempotency record the new home holds completed
 * stays the new home's (its orders decide the duplicate), one it holds in flight takes the old home's completion; an order whose Idempotency-Key has another order in the new
 * home is a duplicate, stored with its refund ({@link Compensation}), else adopted.
 */
public final class ShopReconciler implements ChangeReconciler {

    private static final ReconcilePolicy<Account> ACCOUNTS = ReconcilePolicy.conflictUnlessEqual();
    private static final ReconcilePolicy<Session> SESSIONS = ReconcilePolicy.conflictUnlessEqual();
    private static final ReconcilePolicy<Cart> CARTS = ReconcilePolicy.merging(Cart::merge);

    private final Supplier<Map<String, Region>> unitHomes;
    private final HomeResolver homes;
    private final Clock clock;
    private final MoveLedger ledger = new MoveLedger();
    private final Reconciliations counts;
    private final Compensator<Order> refunds;

    /**
     * @param unitHomes every unit's home now, by unit id (the control plane's live map)
     * @param homes     the unit of a user id (its home is not read)
     * @param clock     stamps moves, conflicts and refunds
     */
    public ShopReconciler(Supplier<Map<String, Region>> unitHomes, HomeResolver homes, Clock clock) {
        this(unitHomes, homes, clock, new Reconciliations());
    }

    /**
     * As above, exporting the counts, open conflicts and failures as meters in {@code registry}
     * ({@link Reconciliations}).
     */
    public ShopReconciler(Supplier<Map<String, Region>> unitHomes, HomeResolver homes, Clock clock,
                          MeterRegistry registry) {
        this(unitHomes, homes, clock, new Reconciliations(registry));
    }

    private ShopReconciler(Supplier<Map<String, Region>> unitHomes, HomeResolver homes, Clock clock,
                           Reconciliations counts) {
        this.counts = counts;
        this.unitHomes = Objects.requireNonNull(unitHomes, "unitHomes");
        this.homes = Objects.requireNonNull(homes, "homes");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.refunds = (duplicate, kept) -> new Compensation(duplicate.orderId(), kept.orderId(),
                duplicate.idempotencyKey(), duplicate.userId(), "refund: Idempotency-Key " + duplicate.idempotencyKey()
                + " ordered again as " + kept.orderId() + " after its unit was promoted", clock.instant());
    }

    /** The moves seen so far. */
    public MoveLedger ledger() {
        return ledger;
    }

    /** What reconciliation did so far. */
    public Reconciliations.Report report() {
        return counts.report();
    }

    /** The open conflicts and failing reconciliation, as a health reason for operators. */
    public ReconcileStatus status() {
        return counts.status();
    }

    @Override
    public void beforeRound() {
        unitHomes.get().forEach((unit, home) -> ledger.observe(unit, home, clock.instant()));
    }

    @Override
    public StoreResult<Boolean> deliver(Change change, RegionalStore target) {
        String user = userOf(change, target);
        Home home = user == null ? null : homes.home(user);
        Optional<UnitMove> crossed = home == null || home.unit() == null ? Optional.empty()
                : ledger.crossed(home.unit(), change.origin(), change.writtenAt());
        if (crossed.isEmpty()) {
            return target.apply(change);
        }
        if (!target.region().equals(crossed.get().to())) {
            return target.setAside(change, null); // the new home decides; its own log brings the outcome here
        }
        StoreResult<Boolean> done = reconcile(change, target, crossed.get(), user);
        if (!done.isOk()) {
            counts.failed(crossed.get().unit(), change.kind().name(), change.id(),
                          target.region() + ": " + done.status() + " " + done.detail());
        }
        return done;
    }

    private StoreResult<Boolean> reconcile(Change change, RegionalStore target, UnitMove move, String user) {
        return switch (change.kind()) {
            case ACCOUNT -> {
                StoreResult<Account> ours = target.account(user);
                yield readable(ours)
                      ? settle(change, target, move, ACCOUNTS.decide(ChangeCodec.account(change.payload()),
                                                                     present(ours)))
                      : failed(ours);
            }
            case SESSION -> {
                StoreResult<Session> ours = target.session(change.key());
                yield readable(ours)
                      ? settle(change, target, move, SESSIONS.decide(ChangeCodec.session(change.payload()),
                                                                     present(ours)))
                      : failed(ours);
            }
            case CART -> {
                StoreResult<Cart> ours = target.cart(user);
                yield ours.isOk() ? settle(change, target, move, CARTS.decide(ChangeCodec.cart(change.payload()),
                                                                             Optional.of(ours.value())))
                                  : failed(ours);
            }
            case IDEMPOTENCY -> {
                StoreResult<IdempotencyRecord> ours = target.idempotencyRecord(change.key());
                if (!readable(ours)) {
                    yield failed(ours);
                }
                // The new home's completed record of a key stands: it answers the key's retries from now on. A record
                // still in flight there is taken over by the old home's completion (the same claim's next change).
                boolean adopt = !change.payload().isEmpty() && (!ours.isOk() || ours.value().inFlight()
                        && !ChangeCodec.idempotency(change.payload()).inFlight());
                yield settle(change, target, move, adopt ? Outcome.adopt(change.payload()) : Outcome.same());
            }
            case ORDER -> {
                StoreResult<List<Order>> ours = target.orders(user);
                StoreResult<List<Compensation>> refunded = target.compensations(user);
                if (!ours.isOk() || !refunded.isOk()) {
                    yield failed(ours.isOk() ? refunded : ours);
                }
                yield settle(change, target, move, orderOutcome(ChangeCodec.order(change.payload()), ours.value(),
                                                                refunded.value()));
            }
            case COMPENSATION -> settle(change, target, move, Outcome.adopt(change.payload()));
        };
    }

    /** The order policy: a duplicate when the new home holds another, unrefunded order under the same key. */
    private static Outcome<Order> orderOutcome(Order theirs, List<Order> ours, List<Compensation> refunded) {
        Set<String> undone = new HashSet<>();
        refunded.forEach(c -> undone.add(c.duplicateId()));
        if (ours.stream().anyMatch(o -> o.orderId().equals(theirs.orderId()))) {
            return Outcome.same();
        }
        if (!theirs.idempotencyKey().isEmpty()) {
            for (Order o : ours) {
                if (o.idempotencyKey().equals(theirs.idempotencyKey()) && !undone.contains(o.orderId())) {
                    return Outcome.duplicate(theirs, o);
                }
            }
        }
        return Outcome.adopt(theirs);
    }

    @SuppressWarnings("unchecked")
    private StoreResult<Boolean> settle(Change change, RegionalStore target, UnitMove move, Outcome<?> outcome) {
        StoreResult<Boolean> done;
        Conflict conflict = null;
        Compensation compensation = null;
        if (outcome instanceof Outcome.Adopt<?> || outcome instanceof Outcome.Merge<?>) {
            done = target.adopt(change); // a cart's adopt merges into the stored one
        } else if (outcome instanceof Outcome.Duplicate<?> d) {
            Outcome.Duplicate<Order> dup = (Outcome.Duplicate<Order>) d;
            compensation = refunds.compensate(dup.duplicate(), dup.kept());
            done = target.compensate(change, compensation);
        } else if (outcome instanceof Outcome.Diverged<?> d) {
            conflict = new Conflict(change.id(), move.unit(), change.kind().name(), change.key(), change.origin(),
                                    target.region(), d.detail(), clock.instant());
            done = target.setAside(change, conflict);
        } else {
            done = target.setAside(change, null);
        }
        if (done.isOk() && done.value()) {
            counts.decided(outcome);
            if (conflict != null) {
                counts.conflict(conflict);
            }
            if (compensation != null) {
                counts.compensated(compensation);
            }
        }
        return done;
    }

    /** The user a change belongs to; for a deleted idempotency record, the user of the record held here. */
    private static String userOf(Change change, RegionalStore target) {
        return switch (change.kind()) {
            case ACCOUNT, CART -> change.key();
            case SESSION -> ChangeCodec.session(change.payload()).userId();
            case ORDER -> ChangeCodec.order(change.payload()).userId();
            case COMPENSATION -> ChangeCodec.compensation(change.payload()).owner();
            case IDEMPOTENCY -> {
                if (!change.payload().isEmpty()) {
                    yield ChangeCodec.idempotency(change.payload()).userId();
                }
                StoreResult<IdempotencyRecord> held = target.idempotencyRecord(change.key());
                yield held.isOk() ? held.value().userId() : null;
            }
        };
    }

    private static <T> Optional<T> present(StoreResult<T> result) {
        return result.isOk() ? Optional.of(result.value()) : Optional.empty();
    }

    /** Found, or known to be absent: anything else (unavailable) stalls the change until the next round. */
    private static boolean readable(StoreResult<?> result) {
        return result.isOk() || result.status() == StoreResult.Status.NOT_FOUND;
    }

    private static StoreResult<Boolean> failed(StoreResult<?> result) {
        return new StoreResult<>(result.status(), null, result.detail());
    }
}
