package io.unitas.data.remote;

import java.util.Optional;

/**
 * How the home region reads one entity type from its own store, supplied by the service for each type it lets other
 * regions read. Called on a blocking thread: a JDBC query is fine here.
 */
@FunctionalInterface
public interface EntityReader {

    /**
     * The entity at {@code key} of {@code unit}, or empty when this store has none. An exception is answered as a
     * failure of the home (500), which the caller sees as {@code data-not-ready}, never as "not found".
     */
    Optional<StoredEntity> read(String unit, String key) throws Exception;
}
