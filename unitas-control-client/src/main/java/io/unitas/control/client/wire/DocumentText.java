package io.unitas.control.client.wire;

import java.util.Objects;

/**
 * A topology, rules or failover document as sent to {@code PUT /api/v1/topology} (and {@code rules},
 * {@code failover}): its text and whether it is YAML or JSON. The server validates it as a whole.
 *
 * @param text the document
 * @param yaml whether it is YAML ({@code application/yaml}); else JSON
 */
public record DocumentText(String text, boolean yaml) {

    public DocumentText {
        Objects.requireNonNull(text, "text");
    }

    /** A JSON document. */
    public static DocumentText json(String text) {
        return new DocumentText(text, false);
    }

    /** A YAML document. */
    public static DocumentText yaml(String text) {
        return new DocumentText(text, true);
    }

    /** Its media type. */
    public String mediaType() {
        return yaml ? "application/yaml" : "application/json";
    }
}
