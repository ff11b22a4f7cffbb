package io.unitas.spring;

import io.unitas.client.RoutingSnapshot;

/**
 * Where the service's routing state comes from: unit rules, region health and write fences. The starter reads static
 * files ({@code unitas.topology}, {@code unitas.rules}, {@code unitas.health}); an application that follows a control
 * plane, or a test, declares its own bean of this type instead.
 */
@FunctionalInterface
public interface UnitasRoutingState {

    /** The latest snapshot; called on every request and every load-balanced call, so it must be cheap. */
    RoutingSnapshot current();
}
