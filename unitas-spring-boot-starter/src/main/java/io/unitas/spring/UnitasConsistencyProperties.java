package io.unitas.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code unitas.consistency.*}: where the entities' staleness budgets are declared (the consistency contract file, or
 * {@link UnitasEntity.Builder#stalenessBudget}), and what a replication lag over one does to
 * {@code /actuator/health/unitas}.
 *
 * <pre>
 * unitas:
 *   consistency:
 *     declarations: classpath:unitas/consistency.yaml   # optional: the budgets `unitas check consistency` checks
 *     gate: out-of-service    # report (default): listed only; out-of-service or down: the status too
 * </pre>
 */
@ConfigurationProperties(prefix = "unitas.consistency")
public class UnitasConsistencyProperties {

    /** What a budget exceeded does to the unitas health component. */
    public enum Gate {
        /** Listed as a reason; the status stays. */
        REPORT,
        /** {@code OUT_OF_SERVICE}: the readiness probe takes the instance out. */
        OUT_OF_SERVICE,
        /** {@code DOWN}. */
        DOWN
    }

    /** report (a reason only), out-of-service or down, when an entity's lag exceeds its staleness budget. */
    private Gate gate = Gate.REPORT;

    /**
     * The consistency contract (a {@code classpath:} or {@code file:} location of consistency.yaml, or an OpenAPI
     * document): its {@code entities.NAME.staleness_budget} is the budget of the entity bean of type NAME.
     */
    private String declarations;

    public String getDeclarations() {
        return declarations;
    }

    public void setDeclarations(String declarations) {
        this.declarations = declarations;
    }

    public Gate getGate() {
        return gate;
    }

    public void setGate(Gate gate) {
        this.gate = gate;
    }
}
