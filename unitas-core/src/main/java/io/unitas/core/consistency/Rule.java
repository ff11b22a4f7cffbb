package io.unitas.core.consistency;

/**
 * The rules of the consistency check, each with the id a violation names and a one-line statement. Seed 003's
 * decision tree gives the first four, seed 004's service kinds the next two, the residency of units and entities
 * (seed 000: review the fallback order against compliance boundaries) the last two.
 */
public enum Rule {
    /** Money or legal records must be strongly consistent. */
    MONEY_STRONG("money-strong", "money or legal records must be strong"),
    /** Money or legal records must have one writer: the unit's home, or the center for a global service. */
    MONEY_ONE_WRITER("money-one-writer",
                     "money or legal records are written in one region per unit (the center for global)"),
    /** Eventual data needs a merge policy or idempotent operations to converge. */
    EVENTUAL_CONVERGES("eventual-converges", "eventual needs a merge policy or idempotent operations"),
    /** Data written in several regions needs a merge policy for concurrent versions. */
    MULTI_WRITER_MERGE("multi-writer-merge", "data written in any region needs a merge policy"),
    /** A staleness budget must cover the measured replication lag. */
    STALENESS_BUDGET("staleness-budget", "a bounded-staleness budget must not be below the measured lag"),
    /** Shared data is a replica of global data and is written only in the center. */
    SHARED_WRITES_CENTER("shared-writes-center", "a shared entity is written only in the center"),
    /** A global service lives in the topology's center, and is written there only. */
    GLOBAL_IN_CENTER("global-in-center", "a global service is declared and written in the topology's center"),
    /** A unit's or entity's data is placed in its residency group. */
    RESIDENCY_HOME("residency-home", "a unit or entity is placed inside its residency group"),
    /** No failover, spillover or promotion may move it out of its residency group. */
    RESIDENCY_FALLBACK("residency-fallback",
                       "no fallback list, spillover band or promotion target leaves the residency group");

    private final String id;
    private final String statement;

    Rule(String id, String statement) {
        this.id = id;
        this.statement = statement;
    }

    /** The rule's id, as violations and the docs name it ({@code money-strong}). */
    public String id() {
        return id;
    }

    /** The rule in one line. */
    public String statement() {
        return statement;
    }
}
