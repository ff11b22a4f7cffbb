package io.unitas.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.unitas.data.merge.OpenSiblings;
import io.unitas.data.merge.SiblingsResolution;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * {@code /actuator/siblings}: the entities in conflict in this region, oldest first;
 * {@code /actuator/siblings/{type}/{key}}: the resolutions of one entity on record; and a {@code POST} there with
 * {@code choice} (the 0-based index of the value kept, in the order listed), {@code who} and {@code why}: an
 * operator's resolution, shipped to every region and recorded in {@code unitas_sibling_resolutions}.
 */
@WebEndpoint(id = "siblings")
final class SiblingsEndpoint {

    private final UnitasMerge merge;

    SiblingsEndpoint(UnitasMerge merge) {
        this.merge = merge;
    }

    @ReadOperation
    Map<String, Object> open() {
        List<Map<String, Object>> open = merge.openSiblings().stream().map(SiblingsEndpoint::json).toList();
        return Map.of("region", merge.region(), "open", open);
    }

    @ReadOperation
    Map<String, Object> resolutions(@Selector String type, @Selector String key) {
        List<Map<String, Object>> list = merge.resolutions(type, key).stream().map(SiblingsEndpoint::json).toList();
        return Map.of("type", type, "key", key, "resolutions", list);
    }

    @WriteOperation
    WebEndpointResponse<Map<String, Object>> resolve(@Selector String type, @Selector String key, Integer choice,
                                                     String who, String why) {
        if (choice == null || who == null || who.isBlank() || why == null || why.isBlank()) {
            return error(400, "choice: " + choice + ", who: '" + who + "', why: '" + why + "' (expected: the index"
                              + " of the value kept, who resolves and why, all given)");
        }
        try {
            Object chosen = merge.resolveByChoice(type, key, choice, who, why);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("type", type);
            out.put("key", key);
            out.put("resolved", String.valueOf(chosen));
            out.put("who", who);
            return new WebEndpointResponse<>(out);
        } catch (IllegalArgumentException e) {
            return error(e.getMessage() != null && e.getMessage().contains("no open siblings") ? 404 : 400,
                         e.getMessage());
        } catch (IllegalStateException e) {
            return error(503, e.getMessage());
        }
    }

    private static WebEndpointResponse<Map<String, Object>> error(int status, String message) {
        return new WebEndpointResponse<>(Map.of("error", String.valueOf(message)), status);
    }

    static Map<String, Object> json(OpenSiblings s) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", s.type());
        out.put("key", s.key());
        out.put("unit", s.unit());
        out.put("versions", s.versions());
        out.put("detail", s.detail());
        out.put("detected_at", s.detectedAt().toString());
        return out;
    }

    static Map<String, Object> json(SiblingsResolution r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("at", r.at().toString());
        out.put("who", r.who());
        out.put("reason", r.reason());
        out.put("was", r.was());
        out.put("chosen", r.chosen());
        return out;
    }
}
