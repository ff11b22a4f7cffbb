package io.unitas.data.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * How a service writes one kind of entity from a change of another region, in the applier's transaction (which also
 * moves the applied position, so the entity and the position commit together). It writes the entity as the change
 * carries it; it need not guard against repeats, the applier never calls it twice for one change.
 */
@FunctionalInterface
public interface ChangeHandler {

    /**
     * Writes {@code change}'s entity with {@code transaction}. A {@link SQLException} the database raises for the
     * statement (a constraint, a missing column) or a {@link RuntimeException} (a payload it cannot decode) stops the
     * unit's stream with that reason; a read-only or unreachable database is retried later.
     */
    void apply(Connection transaction, ChangeEnvelope change) throws SQLException;

    /**
     * Writes the entities of {@code changes} (of several units, each unit's in its order, none a repeat) with
     * {@code transaction}, as if by {@link #apply} for each in turn: this default does just that. A handler overrides
     * it to write them in one round trip ({@code PreparedStatement.addBatch} and {@code executeBatch}, or one
     * multi-row statement); it must leave the same rows as the changes applied one by one, in order (a later change
     * of an entity wins). Should it throw, the applier rolls the transaction back and applies each unit's changes one
     * by one with {@link #apply}, so that a refused change stops only its unit, with its own reason.
     */
    default void applyAll(Connection transaction, List<ChangeEnvelope> changes) throws SQLException {
        for (ChangeEnvelope change : changes) {
            apply(transaction, change);
        }
    }
}
