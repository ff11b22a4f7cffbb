package io.unitas.control.client.wire;

import java.util.Optional;
import java.util.Set;

/**
 * {@code GET /api/v1/state}: the whole state at one revision, with the members callers act on typed and the
 * document itself (topology, rules, health, ...) as JSON text, to show or to hand to a reader of that part.
 *
 * @param revision    the state's revision (also its {@code ETag})
 * @param updatedAt   when it was committed (RFC 3339; {@code ""} before the first change)
 * @param fencedUnits the units whose writes are fenced
 * @param switchover  the current or last switchover
 * @param json        the state as JSON text, as the server sent it
 */
public record StateView(long revision, String updatedAt, Set<String> fencedUnits,
                        Optional<SwitchoverView> switchover, String json) {

    public StateView {
        fencedUnits = Set.copyOf(fencedUnits);
    }
}
