package io.unitas.data.merge;

import java.time.Instant;
import java.util.Objects;

/**
 * A resolution of siblings on record ({@code unitas_sibling_resolutions}).
 *
 * @param type   the entity type
 * @param key    the entity's key
 * @param at     when it was resolved
 * @param who    who resolved it (an operator, a service's own process)
 * @param reason why, in their words
 * @param was    the siblings it replaced, as listed
 * @param chosen the state written over them
 */
public record SiblingsResolution(String type, String key, Instant at, String who, String reason, String was,
                                 String chosen) {

    /** Requires every part. */
    public SiblingsResolution {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(who, "who");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(was, "was");
        Objects.requireNonNull(chosen, "chosen");
    }
}
