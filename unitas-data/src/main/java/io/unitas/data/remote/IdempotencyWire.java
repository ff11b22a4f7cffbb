package io.unitas.data.remote;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.Region;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;

/**
 * The wire format of idempotency operations at a home, one place for both ends. Every operation names the unit and
 * the key in the query ({@code ?unit=&key=}) and carries the bearer token and the caller's time left as home reads
 * do. The home's store answers 200 with its {@link StoreResult} as JSON ({@code {"region","unit","key","status",
 * "detail","record"}}); a request the home refuses is an RFC 9457 problem (401, 400, 404, 421, 500, 503).
 */
final class IdempotencyWire {

    /** {@code GET}: the record of the key ({@code &copy=true}: whatever this region holds, owned or not). */
    static final String RECORD = "/unitas/v1/idempotency/record";
    /** {@code POST} with the in-flight record as the body. */
    static final String CLAIM = "/unitas/v1/idempotency/claim";
    /** {@code POST} with the response as the body: {@code {"status","body","contentType","headers"}}. */
    static final String COMPLETE = "/unitas/v1/idempotency/complete";
    /** {@code POST}, no body. */
    static final String RELEASE = "/unitas/v1/idempotency/release";

    /** 404: the home serves no idempotency store (a deployment mismatch). */
    static final String NOT_SERVED = "idempotency-not-served";

    /** One operation of {@link io.unitas.data.IdempotencyStore}, as paths and metric tags name it. */
    enum Operation {
        RECORD(IdempotencyWire.RECORD),
        CLAIM(IdempotencyWire.CLAIM),
        COMPLETE(IdempotencyWire.COMPLETE),
        RELEASE(IdempotencyWire.RELEASE);

        final String path;

        Operation(String path) {
            this.path = path;
        }

        /** {@code record}, {@code claim}, … */
        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private IdempotencyWire() {}

    static ObjectNode record(IdempotencyRecord r) {
        ObjectNode node = HomeReadWire.JSON.createObjectNode()
                .put("key", r.key())
                .put("owner", r.userId())
                .put("fingerprint", r.payloadHash())
                .put("createdAt", r.createdAt().toString())
                .put("expiresAt", r.expiresAt().toString());
        if (!r.claimToken().isEmpty()) {
            node.put("claimToken", r.claimToken());
        }
        if (r.response() != null) {
            node.set("response", response(r.response()));
        }
        return node;
    }

    static ObjectNode response(StoredResponse response) {
        ObjectNode node = HomeReadWire.JSON.createObjectNode().put("status", response.status())
                                           .put("body", response.body());
        if (!response.contentType().isEmpty()) {
            node.put("contentType", response.contentType());
        }
        if (!response.headers().isEmpty()) {
            ObjectNode headers = node.putObject("headers");
            response.headers().forEach(headers::put);
        }
        return node;
    }

    static byte[] bytes(JsonNode node) {
        try {
            return HomeReadWire.JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a tree of text and numbers is always writable
        }
    }

    /** The 200 body: the store's answer to one operation on {@code key} of {@code unit}. */
    static byte[] result(Region region, String unit, String key, StoreResult<?> result) {
        ObjectNode body = HomeReadWire.JSON.createObjectNode()
                .put("region", region.id())
                .put("unit", unit)
                .put("key", key)
                .put("status", result.status().name().toLowerCase(Locale.ROOT))
                .put("detail", result.detail());
        if (result.value() instanceof IdempotencyRecord r) {
            body.set("record", record(r));
        }
        return bytes(body);
    }

    static JsonNode tree(byte[] body, String what) {
        JsonNode root;
        try {
            root = HomeReadWire.JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + ": not valid JSON");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(what + ": not an object");
        }
        return root;
    }

    /** The record in {@code node}; an {@link IllegalArgumentException} naming what is wrong otherwise. */
    static IdempotencyRecord decodeRecord(JsonNode node, String what) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(what + ": no record object");
        }
        String key = text(node, "key", what);
        String owner = text(node, "owner", what);
        String fingerprint = text(node, "fingerprint", what);
        Instant createdAt = instant(node, "createdAt", what);
        Instant expiresAt = instant(node, "expiresAt", what);
        JsonNode response = node.get("response");
        StoredResponse stored = response == null || response.isNull() ? null : decodeResponse(response, what);
        JsonNode token = node.get("claimToken");
        if (token != null && !token.isNull()
            && (!token.isTextual() || token.asText().length() > IdempotencyRecord.MAX_CLAIM_TOKEN)) {
            throw new IllegalArgumentException(what + ": claimToken " + token + " (expected: text of at most "
                                               + IdempotencyRecord.MAX_CLAIM_TOKEN + " characters)");
        }
        String claimToken = token == null || token.isNull() ? "" : token.asText();
        return new IdempotencyRecord(key, owner, fingerprint, stored, createdAt, expiresAt, claimToken);
    }

    static StoredResponse decodeResponse(JsonNode node, String what) {
        JsonNode status = node.path("status");
        JsonNode body = node.path("body");
        JsonNode contentType = node.path("contentType");
        JsonNode headers = node.path("headers");
        if (!status.canConvertToInt() || !body.isTextual() || !(contentType.isMissingNode() || contentType.isTextual())
            || !(headers.isMissingNode() || headers.isObject())) {
            throw new IllegalArgumentException(what + ": response " + node + " (expected: {\"status\": <int>,"
                                               + " \"body\": <text>, optional \"contentType\": <text> and"
                                               + " \"headers\": {<name>: <text>}})");
        }
        java.util.Map<String, String> kept = new java.util.LinkedHashMap<>();
        for (var header : headers.properties()) {
            if (!header.getValue().isTextual()) {
                throw new IllegalArgumentException(what + ": response header " + header.getKey() + " "
                                                   + header.getValue() + " (expected: text)");
            }
            kept.put(header.getKey(), header.getValue().asText());
        }
        return new StoredResponse(status.asInt(), body.asText(), contentType.asText(""), kept);
    }

    /**
     * The store's answer in a 200 body, which must answer for {@code unit} and {@code key}; its value is the record
     * when {@code withRecord}, else the key (a release).
     */
    static StoreResult<?> decodeResult(byte[] body, String unit, String key, boolean withRecord) {
        String what = "idempotency answer";
        JsonNode root = tree(body, what);
        if (!unit.equals(root.path("unit").asText()) || !key.equals(root.path("key").asText())) {
            throw new IllegalArgumentException(what + ": answers unit '" + root.path("unit").asText() + "' key '"
                                               + root.path("key").asText() + "' (expected: unit '" + unit + "' key '"
                                               + key + "')");
        }
        StoreResult.Status status;
        try {
            status = StoreResult.Status.valueOf(root.path("status").asText().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": status '" + root.path("status").asText()
                                               + "' (expected: ok, not_found, read_only, unavailable or conflict)");
        }
        String detail = root.path("detail").asText("");
        boolean carriesValue = status == StoreResult.Status.OK || status == StoreResult.Status.CONFLICT;
        Object value = null;
        if (carriesValue) {
            value = withRecord ? decodeRecord(root.get("record"), what) : key;
        }
        return new StoreResult<>(status, value, detail);
    }

    private static String text(JsonNode node, String member, String what) {
        JsonNode v = node.get(member);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalArgumentException(what + ": " + member + " " + v + " (expected: non-empty text)");
        }
        return v.asText();
    }

    private static Instant instant(JsonNode node, String member, String what) {
        try {
            return Instant.parse(text(node, member, what));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(what + ": " + member + " '" + node.path(member).asText()
                                               + "' (expected: an ISO-8601 instant)");
        }
    }
}
