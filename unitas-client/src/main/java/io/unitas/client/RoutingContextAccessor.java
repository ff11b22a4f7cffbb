package io.unitas.client;

import io.micrometer.context.ThreadLocalAccessor;

/**
 * Lets Micrometer's context-propagation carry the routing context: Reactor's automatic propagation, Spring's
 * {@code ContextPropagatingTaskDecorator} and {@code ContextSnapshot} wrappers capture and restore it with every
 * other registered thread-local. Registered through {@code META-INF/services}, so {@code ContextRegistry.getInstance()}
 * finds it without code.
 */
public final class RoutingContextAccessor implements ThreadLocalAccessor<RoutingContext> {

    /** The key under which the context is captured (and may be put in a Reactor context by hand). */
    public static final String KEY = "unitas.routing";

    /** Used by the service loader. */
    public RoutingContextAccessor() {}

    @Override
    public Object key() {
        return KEY;
    }

    @Override
    public RoutingContext getValue() {
        return RoutingContextHolder.peek();
    }

    @Override
    public void setValue(RoutingContext value) {
        RoutingContextHolder.set(value);
    }

    @Override
    public void setValue() {
        RoutingContextHolder.set(null);
    }
}
