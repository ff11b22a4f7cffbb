package io.unitas.control.client.wire;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code GET /api/v1/budgets}: one bounded-staleness declaration of the control plane's consistency contract, against
 * the largest replication lag the regions' latest health reports measured.
 *
 * @param name         the entity or service declared
 * @param declaredAt   where its budget is written ({@code consistency.yaml:7: entities.prices.staleness_budget})
 * @param budget       how stale a read of it may be
 * @param largestLagMs the largest lag reported now, in ms; {@code -1} while none is reported
 * @param lagging      what lags that much ({@code unit u-sh from cn to eu}); empty while none is reported
 * @param over         whether that lag is above the budget
 */
public record StalenessBudget(String name, String declaredAt, Duration budget, long largestLagMs, String lagging,
                              boolean over) {

    /** Requires the name, location, budget and what lags. */
    public StalenessBudget {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(declaredAt, "declaredAt");
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(lagging, "lagging");
    }
}
