package io.unitas.data.outbox;

import java.sql.Connection;
import java.sql.SQLException;

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
}
