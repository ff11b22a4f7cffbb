package io.unitas.data.outbox;

import java.util.Objects;
import java.util.Optional;

/**
 * What {@link Outbox#writeAndAppend} did: how many rows the service's statement wrote, and the change appended for
 * them (none when the statement wrote no row, an {@code UPDATE} that matched nothing or an
 * {@code INSERT … ON CONFLICT DO NOTHING} that found the row there).
 *
 * @param rows   rows the service's statement inserted, updated or deleted
 * @param change the change appended with its position, empty when {@code rows} is 0
 */
public record OutboxWrite(int rows, Optional<ChangeEnvelope> change) {

    /** Requires a change exactly when rows were written. */
    public OutboxWrite {
        Objects.requireNonNull(change, "change");
        if (rows < 0) {
            throw new IllegalArgumentException("rows: " + rows + " (expected: >= 0)");
        }
        if ((rows == 0) != change.isEmpty()) {
            throw new IllegalArgumentException("change: " + change + " for " + rows + " rows (expected: a change"
                                               + " exactly when rows were written)");
        }
    }
}
