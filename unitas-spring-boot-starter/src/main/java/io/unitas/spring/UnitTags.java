package io.unitas.spring;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationFilter;
import io.unitas.client.RoutingContext;

/**
 * Tags the service's own HTTP server observations (and so {@code http.server.requests}) with {@code unitas.unit}:
 * the request's unit, or {@code none}. Always present, so every series of the metric has the same tag keys.
 */
final class UnitTags implements ObservationFilter {

    static final String TAG = "unitas.unit";

    @Override
    public Observation.Context map(Observation.Context context) {
        Object routing = null;
        if (context instanceof org.springframework.http.server.observation.ServerRequestObservationContext servlet) {
            routing = servlet.getCarrier().getAttribute(RoutingContextFilter.ATTRIBUTE);
        } else if (context instanceof
                   org.springframework.http.server.reactive.observation.ServerRequestObservationContext reactive) {
            routing = reactive.getAttributes().get(RoutingContextFilter.ATTRIBUTE);
        } else {
            return context;
        }
        String unit = routing instanceof RoutingContext c && c.unit() != null ? c.unit() : "none";
        return context.addLowCardinalityKeyValue(KeyValue.of(TAG, unit));
    }
}
