package io.unitas.spring;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationFilter;
import io.unitas.client.RoutingContext;

/**
 * Tags the service's own HTTP server observations (and so {@code http.server.requests}) with {@code unitas.unit}
 * (the request's unit, or {@code none}) and {@code unitas.route} (how it reached this region:
 * {@link InboundContext#route}). Always present, so every series of the metric has the same tag keys.
 */
final class UnitTags implements ObservationFilter {

    static final String TAG = "unitas.unit";
    static final String ROUTE_TAG = "unitas.route";

    @Override
    public Observation.Context map(Observation.Context context) {
        Object routing;
        Object route;
        if (context instanceof org.springframework.http.server.observation.ServerRequestObservationContext servlet) {
            routing = servlet.getCarrier().getAttribute(RoutingContextFilter.ATTRIBUTE);
            route = servlet.getCarrier().getAttribute(InboundContext.ROUTE_ATTRIBUTE);
        } else if (context instanceof
                   org.springframework.http.server.reactive.observation.ServerRequestObservationContext reactive) {
            routing = reactive.getAttributes().get(RoutingContextFilter.ATTRIBUTE);
            route = reactive.getAttributes().get(InboundContext.ROUTE_ATTRIBUTE);
        } else {
            return context;
        }
        String unit = routing instanceof RoutingContext c && c.unit() != null ? c.unit() : InboundContext.NONE;
        return context.addLowCardinalityKeyValue(KeyValue.of(TAG, unit))
                      .addLowCardinalityKeyValue(KeyValue.of(ROUTE_TAG, route instanceof String r ? r
                                                                                  : InboundContext.NONE));
    }
}
