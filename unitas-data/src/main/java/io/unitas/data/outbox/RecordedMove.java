package io.unitas.data.outbox;

import io.unitas.core.Region;
import io.unitas.data.reconcile.UnitMove;
import java.util.Objects;

/**
 * A move of a unit between homes as one region recorded it, with how far that region had applied the old home's
 * changes of the unit when it saw the move: what the old home had shipped there before the unit left.
 *
 * @param move           the move
 * @param shippedThrough the last position of {@code move.from()}'s changes of the unit applied in the recording
 *                       region when it saw the move (0 for none)
 */
public record RecordedMove(UnitMove move, long shippedThrough) {

    /** Requires a move and a position from 0. */
    public RecordedMove {
        Objects.requireNonNull(move, "move");
        if (shippedThrough < 0) {
            throw new IllegalArgumentException("shippedThrough: " + shippedThrough + " (expected: >= 0)");
        }
    }

    /** The unit moved. */
    public String unit() {
        return move.unit();
    }

    /** Its home before. */
    public Region from() {
        return move.from();
    }

    /** Its home after. */
    public Region to() {
        return move.to();
    }
}
