package io.unitas.control;

import java.time.Instant;
import java.util.List;

import io.unitas.core.Region;

/**
 * A move the failover policy asks an operator to accept ({@code mode: ask}): the units of a group whose home has
 * stayed unable to take writes, the region they would move to, and whether without waiting on lag. Pending until
 * accepted ({@code POST /api/v1/proposals/{id}/accept}), replaced by a promotion when its time comes, or dropped once
 * the home recovers or the units have moved.
 *
 * @param id      {@code <group>@<home>}: one pending proposal per group and faulted home
 * @param group   the policy group's name
 * @param from    the faulted home
 * @param to      the proposed new home
 * @param units   the units that would move
 * @param promote whether they would move without waiting on lag
 * @param why     what the policy saw
 * @param since   when it was proposed
 */
record Proposal(String id, String group, Region from, Region to, List<String> units, boolean promote, String why,
                Instant since) {

    Proposal {
        units = List.copyOf(units);
    }

    static String idOf(String group, Region home) {
        return group + "@" + home.id();
    }
}
