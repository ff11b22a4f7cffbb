package io.unitas.data.outbox;

import io.unitas.core.Region;
import io.unitas.data.reconcile.Conflict;
import io.unitas.data.reconcile.Outcome;
import io.unitas.data.reconcile.ReconcilePolicy;
import io.unitas.data.reconcile.Reconciliations;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link CrossedChangeHandler} for one kind of entity driven by the service's {@link ReconcilePolicy}: the old
 * home's version ({@code theirs}, decoded from the change) against the new home's ({@code ours}, read in the
 * applier's transaction). Adopted or merged, it is written in the new home and appended to its outbox in the same
 * transaction, so every region, the old home included, gets the new home's decision by ordinary replication; the
 * same, nothing is done; diverged (or done on both sides, which needs the service's own compensation), the new home's
 * version stands and the old home's is a {@link Conflict} handed to {@link Reconciliations} (counted, open, logged
 * with its unit and key, a health reason until resolved). Every outcome is counted there.
 *
 * @param <T> the entity
 */
public final class ReconcilingHandler<T> implements CrossedChangeHandler {

    /**
     * How the reconciler reads and writes one kind of entity of the service's schema.
     *
     * @param <T> the entity
     */
    public interface Entities<T> {

        /** The entity a change carries (the service's own encoding). */
        T decode(ChangeEnvelope change);

        /** The entity encoded as the service's changes carry it. */
        byte[] encode(T entity);

        /** The new home's version of {@code key}, read in {@code transaction}; empty when it has none. */
        Optional<T> read(Connection transaction, String key) throws SQLException;

        /** Writes {@code entity} under {@code key} in {@code transaction} (insert or overwrite). */
        void write(Connection transaction, String key, T entity) throws SQLException;
    }

    private final Region region;
    private final Entities<T> entities;
    private final ReconcilePolicy<T> policy;
    private final Outbox outbox;
    private final Reconciliations counts;
    private final Clock clock;

    /**
     * Decides the crossed changes of one entity kind in {@code outbox}'s region (the unit's new home) by
     * {@code policy}, counting them in {@code counts}.
     */
    public ReconcilingHandler(Entities<T> entities, ReconcilePolicy<T> policy, Outbox outbox, Reconciliations counts,
                              Clock clock) {
        this.entities = Objects.requireNonNull(entities, "entities");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.region = outbox.origin();
        this.counts = Objects.requireNonNull(counts, "counts");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public void reconcile(Connection transaction, ChangeEnvelope change, RecordedMove move) throws SQLException {
        T theirs = entities.decode(change);
        Optional<T> ours = entities.read(transaction, change.key());
        Outcome<T> outcome = policy.decide(theirs, ours);
        if (outcome instanceof Outcome.Adopt<T> adopt) {
            write(transaction, change, adopt.theirs());
        } else if (outcome instanceof Outcome.Merge<T> merge) {
            write(transaction, change, merge.merged());
        } else if (outcome instanceof Outcome.Diverged<T> diverged) {
            conflict(change, move, diverged.detail());
        } else if (outcome instanceof Outcome.Duplicate<T> duplicate) {
            conflict(change, move, "done on both sides (" + duplicate.duplicate() + " and " + duplicate.kept()
                                   + "); no compensation at this level");
        }
        counts.decided(outcome);
    }

    private void write(Connection transaction, ChangeEnvelope change, T entity) throws SQLException {
        entities.write(transaction, change.key(), entity);
        outbox.append(transaction, change.unit(), change.entityType(), change.key(), entities.encode(entity));
    }

    private void conflict(ChangeEnvelope change, RecordedMove move, String detail) {
        counts.conflict(new Conflict(change.id(), move.unit(), change.entityType(), change.key(), change.origin(),
                                     region, detail, clock.instant()));
    }
}
