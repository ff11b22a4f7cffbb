package io.unitas.data.remote;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.ProblemType;

/**
 * The wire format of a home read, one place for both ends: {@code GET /unitas/v1/home-read?unit=&type=&key=} with a
 * bearer token; 200 with the entity as JSON, or an RFC 9457 problem of one of the types below.
 */
final class HomeReadWire {

    static final String PATH = "/unitas/v1/home-read";
    /** What a client asks only to open its connection: no route serves it, so any answer (404) will do. */
    static final String CONNECT_PATH = "/unitas/v1/connect";
    /**
     * What a home declares, asked at a peer's start: {@code GET} with the bearer token, 200 with
     * {@code {"region":…,"entities":{type: codec identity}}} ("" for a type served without one).
     */
    static final String DECLARATIONS_PATH = "/unitas/v1/declarations";

    /**
     * The caller's time left for this attempt, in whole milliseconds (like gRPC's {@code grpc-timeout}): the home
     * drops a read still waiting for a reader thread when that time has passed.
     */
    static final String TIMEOUT_HEADER = "unitas-timeout-ms";

    /** 503: the read waited at the home beyond the caller's time left and was dropped unread. */
    static final String EXPIRED = "home-read-expired";
    /** 401: no bearer token, or not one the home accepts. */
    static final String UNAUTHENTICATED = "unauthenticated";
    /** 400: a query parameter is missing, or given more than once. */
    static final String BAD_REQUEST = "bad-request";
    /** 404: the home serves no reader for this entity type (a deployment mismatch, not a missing entity). */
    static final String UNKNOWN_ENTITY_TYPE = "unknown-entity-type";
    /** 421: the region asked does not own the unit now. */
    static final String NOT_HOME_REGION = ProblemType.NOT_HOME_REGION.name();
    /** 404: the home's store has no such entity; the only answer a client takes as "not found". */
    static final String ENTITY_NOT_FOUND = "entity-not-found";
    /** 500: the home's reader failed. */
    static final String READ_FAILED = "home-read-failed";

    /** The one mapper of both ends, with a nesting limit against hostile bodies. */
    static final ObjectMapper JSON = JsonMapper.builder(
            JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(8).build())
                    .build()).build();

    private HomeReadWire() {}

    /** The 200 body: where it was read and the entity, its payload in base64. */
    static byte[] encode(String region, String unit, String type, String key, StoredEntity entity) {
        ObjectNode body = JSON.createObjectNode()
                              .put("region", region)
                              .put("unit", unit)
                              .put("type", type)
                              .put("key", key)
                              .put("version", entity.version())
                              .put("acknowledgedAt", entity.acknowledgedAt().toString())
                              .put("payload", entity.payload());
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a tree of text and numbers is always writable
        }
    }

    /**
     * The entity in a 200 body that must answer for {@code unit} and {@code key}; an
     * {@link IllegalArgumentException} naming what is wrong otherwise.
     */
    static StoredEntity decode(byte[] body, String unit, String key) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("home read body: not valid JSON");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("home read body: not an object");
        }
        if (!unit.equals(root.path("unit").asText()) || !key.equals(root.path("key").asText())) {
            throw new IllegalArgumentException("home read body: answers unit '" + root.path("unit").asText()
                                               + "' key '" + root.path("key").asText() + "' (expected: unit '" + unit
                                               + "' key '" + key + "')");
        }
        JsonNode version = root.path("version");
        JsonNode payload = root.path("payload");
        if (!version.canConvertToLong() || version.asLong() < 0 || !payload.isTextual()) {
            throw new IllegalArgumentException("home read body: version " + version + ", payload "
                                               + payload.getNodeType() + " (expected: a version >= 0, base64 text)");
        }
        try {
            return new StoredEntity(version.asLong(), payload.binaryValue(),
                                    Instant.parse(root.path("acknowledgedAt").asText()));
        } catch (IOException | DateTimeParseException e) {
            throw new IllegalArgumentException("home read body: " + e.getMessage());
        }
    }

    /** The declarations body: the region and, per entity type it serves, its codec identity. */
    static byte[] encodeDeclarations(String region, java.util.Map<String, String> codecs) {
        ObjectNode body = JSON.createObjectNode().put("region", region);
        ObjectNode entities = body.putObject("entities");
        new java.util.TreeMap<>(codecs).forEach(entities::put);
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a tree of text is always writable
        }
    }

    /** Entity type to codec identity from a declarations body; an {@link IllegalArgumentException} if malformed. */
    static java.util.Map<String, String> decodeDeclarations(byte[] body) {
        JsonNode entities;
        try {
            entities = JSON.readTree(body).path("entities");
        } catch (IOException | NullPointerException e) {
            throw new IllegalArgumentException("declarations body: not valid JSON");
        }
        if (!entities.isObject()) {
            throw new IllegalArgumentException("declarations body: no \"entities\" object");
        }
        java.util.Map<String, String> codecs = new java.util.TreeMap<>();
        entities.fields().forEachRemaining(e -> codecs.put(e.getKey(), e.getValue().asText()));
        return java.util.Collections.unmodifiableMap(codecs);
    }
}
