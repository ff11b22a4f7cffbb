package io.unitas.data.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * What a unit's new home does with a change its old home acknowledged but did not ship before the unit moved
 * ({@link MoveLog#crossed}), instead of writing it over the new home's data: decide it by the service's policy, in the
 * applier's transaction (which also moves the applied position, so a change is decided once). See
 * {@link ReconcilingHandler} for the library's policy-driven one.
 */
@FunctionalInterface
public interface CrossedChangeHandler {

    /**
     * Decides {@code change}, which crossed {@code move}, in this region (the move's new home) with
     * {@code transaction}. Throws as a {@link ChangeHandler} does: a refusal stops the unit's stream with that reason.
     */
    void reconcile(Connection transaction, ChangeEnvelope change, RecordedMove move) throws SQLException;

    /**
     * One handler per entity type; a crossed change of a type without one is refused (its unit's stream stops,
     * visibly), never applied over the new home's data.
     */
    static CrossedChangeHandler byType(Map<String, CrossedChangeHandler> handlers) {
        Map<String, CrossedChangeHandler> copy = Map.copyOf(handlers);
        return (tx, change, move) -> {
            CrossedChangeHandler handler = copy.get(change.entityType());
            if (handler == null) {
                throw new IllegalStateException("no reconciler for entity type '" + change.entityType()
                                                + "' (expected one of " + copy.keySet() + ")");
            }
            handler.reconcile(tx, change, move);
        };
    }
}
