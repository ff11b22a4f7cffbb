package io.unitas.core.consistency;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import io.unitas.core.Region;
import io.unitas.core.ServiceKind;

/**
 * What one service or entity promises about its data, as its team declares it.
 *
 * @param name          the service's or entity's name ({@code orders}, {@code POST /checkout})
 * @param kind          core, global or shared (seed 004)
 * @param level         its consistency level
 * @param budget        how stale a read may be; set only for {@link ConsistencyLevel#BOUNDED_STALENESS}
 * @param moneyOrLegal  whether it handles money or legal records
 * @param idempotent    whether its operations are idempotent (a retry applies nothing twice)
 * @param merge         its merge policy, or {@code null} for none
 * @param writes        where it takes writes
 * @param region        for a global service, the region it is declared in; {@code null} for the center
 * @param residency     the name of its residency group, or {@code null} for none
 * @param where         where the declaration is written
 * @param fields        where each of its keys is written, by the file format's key name ({@code consistency})
 */
public record Declaration(String name, ServiceKind kind, ConsistencyLevel level, Duration budget,
                          boolean moneyOrLegal, boolean idempotent, MergePolicyName merge, WriteScope writes,
                          Region region, String residency, Location where, Map<String, Location> fields) {

    /** Requires the name, kind, level, writes and location; a budget exactly when the level is bounded staleness. */
    public Declaration {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(writes, "writes");
        Objects.requireNonNull(where, "where");
        fields = Map.copyOf(fields);
        if ((level == ConsistencyLevel.BOUNDED_STALENESS) != (budget != null)) {
            throw new IllegalArgumentException(name + ": budget: " + budget + " (expected: a budget with "
                                               + "bounded-staleness and only then)");
        }
        if (budget != null && budget.isNegative()) {
            throw new IllegalArgumentException(name + ": budget: " + budget + " (expected: >= 0)");
        }
    }

    /** Where the key {@code field} is written, or the declaration itself when the key is absent. */
    public Location at(String field) {
        return fields.getOrDefault(field, where);
    }
}
