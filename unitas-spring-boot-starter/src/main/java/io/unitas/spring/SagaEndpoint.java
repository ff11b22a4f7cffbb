package io.unitas.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.core.saga.SagaState;
import io.unitas.data.saga.SagaCoordinator;
import io.unitas.data.saga.SagaRecord;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * {@code /actuator/sagas}: the stuck sagas (a compensation or a step after the pivot that kept failing), oldest change
 * first; {@code /actuator/sagas/{id}}: one saga; and a {@code POST} there with {@code action} ({@code retry},
 * {@code resolve-completed}, {@code resolve-compensated}), {@code who} and {@code why}: an operator's action, recorded
 * with who, when and why in {@code unitas_saga_interventions}.
 */
@WebEndpoint(id = "sagas")
final class SagaEndpoint {

    private final SagaCoordinator coordinator;

    SagaEndpoint(SagaCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @ReadOperation
    Map<String, Object> stuck() {
        List<Map<String, Object>> stuck = coordinator.stuck().stream().map(SagaEndpoint::json).toList();
        return Map.of("stuck", stuck);
    }

    @ReadOperation
    WebEndpointResponse<Map<String, Object>> saga(@Selector String id) {
        return coordinator.find(id).map(r -> new WebEndpointResponse<>(json(r)))
                .orElseGet(() -> error(404, "saga " + id + ": not found (expected: a saga's id)"));
    }

    @WriteOperation
    WebEndpointResponse<Map<String, Object>> act(@Selector String id, String action, String who, String why) {
        try {
            SagaRecord record = switch (action == null ? "" : action) {
                case "retry" -> coordinator.retry(id, who, why);
                case "resolve-completed" -> coordinator.resolve(id, SagaState.COMPLETED, who, why);
                case "resolve-compensated" -> coordinator.resolve(id, SagaState.COMPENSATED, who, why);
                default -> null;
            };
            if (record == null) {
                return error(400, "action: '" + action + "' (expected: retry, resolve-completed or"
                                  + " resolve-compensated)");
            }
            return new WebEndpointResponse<>(json(record));
        } catch (IllegalStateException e) {
            return error(409, e.getMessage());
        } catch (IllegalArgumentException e) {
            return error(e.getMessage().contains("not found") ? 404 : 400, e.getMessage());
        }
    }

    private static WebEndpointResponse<Map<String, Object>> error(int status, String message) {
        return new WebEndpointResponse<>(Map.of("error", message), status);
    }

    static Map<String, Object> json(SagaRecord r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", r.id());
        out.put("saga", r.name());
        out.put("state", r.status().state().jsonName());
        out.put("step", r.status().step());
        out.put("attempts", r.status().attempts());
        out.put("compensating", r.status().compensating());
        out.put("last_error", r.lastError().orElse(null));
        out.put("owner", r.owner().orElse(null));
        out.put("updated_at", r.updatedAt().toString());
        return out;
    }
}
