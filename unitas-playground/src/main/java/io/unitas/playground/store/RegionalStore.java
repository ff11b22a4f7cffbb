package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.reconcile.Compensation;
import io.unitas.data.reconcile.Conflict;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;

/**
 * One region's store of users, sessions, idempotency records, orders and carts. Every write made here is also
 * appended to this store's change log, which a {@link io.unitas.playground.replication.Replicator} ships to the other
 * regions' stores; replicated changes are applied through {@link #apply} and are not logged again.
 *
 * <p>It is the shop's {@link IdempotencyStore}: its records replicate with the rest of its data, so a region can
 * replay a completed checkout while the home cannot be read.
 *
 * <p>Expected conditions come back as {@link StoreResult} values, never as exceptions. Writes are refused with
 * {@code READ_ONLY} while the store is {@link StoreMode#READ_ONLY}; everything answers {@code UNAVAILABLE} while
 * it is {@link StoreMode#UNAVAILABLE}.
 */
public interface RegionalStore extends IdempotencyStore, AutoCloseable {

    /**
     * A store in a fresh in-memory H2 database, the embedded default for local regions and tests.
     *
     * @param region the region it belongs to
     * @param clock  the clock that stamps changes and expires sessions and idempotency records
     */
    static RegionalStore embedded(Region region, Clock clock) {
        return JdbcRegionalStore.embedded(region, clock);
    }

    /**
     * A store over any JDBC database that speaks the store's portable SQL (H2, PostgreSQL). Creates its tables
     * ({@code shop_*}) when absent, in the connection's default schema.
     */
    static RegionalStore jdbc(Region region, DataSource dataSource, Clock clock) {
        return new JdbcRegionalStore(region, dataSource, clock, () -> { });
    }

    /** The region this store belongs to. */
    Region region();

    /**
     * The id this store writes cart changes under: its region's id and the incarnation of its data
     * ({@code cn.3f9a0c1e}), minted when its tables are first created.
     */
    String replicaId();

    /**
     * What the store accepts right now: the mode switched by {@link #mode(StoreMode)}, else what its database
     * accepts (asked with a write that changes nothing: a server turned read-only or stopped shows here).
     */
    StoreMode mode();

    /** Switches what the store accepts: the read-only and outage faults of a drill. */
    void mode(StoreMode mode);

    /** The account of {@code userId}. */
    StoreResult<Account> account(String userId);

    /** Stores (or replaces) an account: a registration. */
    StoreResult<Account> putAccount(Account account);

    /** The session with {@code token}, {@code NOT_FOUND} when absent or expired. */
    StoreResult<Session> session(String token);

    /** Stores (or replaces) a session. */
    StoreResult<Session> putSession(Session session);

    /** The idempotency record of {@code key}, {@code NOT_FOUND} when absent or expired. */
    @Override
    StoreResult<IdempotencyRecord> idempotencyRecord(String key);

    /**
     * Atomically claims {@code record.key()} with an in-flight record: {@code OK} when it was free or its record
     * had expired, {@code CONFLICT} with the stored record when another holds it.
     */
    @Override
    StoreResult<IdempotencyRecord> claim(IdempotencyRecord record);

    /** Stores the response of the in-flight record of {@code key}; {@code NOT_FOUND} when there is none. */
    @Override
    StoreResult<IdempotencyRecord> complete(String key, StoredResponse response);

    /** Deletes the record of {@code key} so the key can be used again (its request failed without effect). */
    @Override
    StoreResult<String> release(String key);

    /** Stores a new order; {@code CONFLICT} with the stored one when its id exists. */
    StoreResult<Order> putOrder(Order order);

    /** Every order of {@code userId}, oldest first. */
    StoreResult<List<Order>> orders(String userId);

    /** The cart of {@code userId}, empty when there is none. */
    StoreResult<Cart> cart(String userId);

    /**
     * Atomically replaces the cart of {@code userId} with {@code edit} applied to it, writing as replica
     * {@link #replicaId()}, and returns the result. Cart writes of one store are serialized, so its replica id
     * never mints one dot twice.
     */
    StoreResult<Cart> updateCart(String userId, CartEdit edit);

    /** Up to {@code limit} changes written here with a sequence above {@code afterSeq}, in order. */
    StoreResult<List<Change>> changesSince(long afterSeq, int limit);

    /**
     * Applies a change replicated from another region, at most once: {@code OK(true)} when applied, {@code OK(false)}
     * when its sequence was already applied. A cart change merges into the stored cart. Works while read-only, as a
     * replica's apply stream does.
     */
    StoreResult<Boolean> apply(Change change);

    /**
     * Reconciliation: writes {@code change}, which its old home did not ship before its unit moved here and which
     * diverges from nothing here, as this store's own write (logged, so it ships to every region; a cart merges into
     * the stored one and the merge is logged), and counts it applied, in one transaction. Refused while read-only.
     */
    StoreResult<Boolean> adopt(Change change);

    /**
     * Reconciliation: counts {@code change} applied without applying it, and keeps {@code conflict}, when given,
     * among this store's conflicts ({@link #conflicts()}). For a change the new home decides elsewhere or that is
     * already here, and for one that diverges with no merge.
     */
    StoreResult<Boolean> setAside(Change change, Conflict conflict);

    /**
     * Reconciliation of a duplicate: stores the old home's order of {@code change} here with its
     * {@code compensation} (both logged) and counts the change applied, in one transaction. Refused while read-only.
     */
    StoreResult<Boolean> compensate(Change change, Compensation compensation);

    /** The compensations of {@code userId}'s orders stored here. */
    StoreResult<List<Compensation>> compensations(String userId);

    /** The conflicts reconciliation kept aside here, oldest first. */
    StoreResult<List<Conflict>> conflicts();

    /**
     * The database the store keeps its tables in. Replication keeps its own bookkeeping beside them (a Kafka
     * receiver's offsets), so it lives and dies with the data it describes.
     */
    DataSource database();

    /** The highest sequence of the log of replica {@code originReplica} applied here, 0 for none. */
    StoreResult<Long> appliedSeq(String originReplica);

    /**
     * Housekeeping, replicated nowhere: drops this store's changes up to {@code shippedThroughSeq} (every other
     * region has applied them) but the newest, which keeps the sequence counting on after a reopen, and the
     * sessions and idempotency records past their expiry (which every region expires alike). {@code OK} with how
     * many rows went.
     */
    StoreResult<Integer> trim(long shippedThroughSeq);

    /** Releases the store's resources; an embedded store's data is dropped. */
    @Override
    void close();
}
