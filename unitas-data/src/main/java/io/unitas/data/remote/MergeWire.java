package io.unitas.data.remote;

import java.io.IOException;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.reconcile.RangeDigest;
import io.unitas.data.merge.MergeDigests;

/**
 * The wire of reconciliation's reads of a home's copy of the merged entities, one place for both ends, with the
 * bearer token and the problems of {@link HomeReadWire}:
 * <ul>
 *   <li>{@code GET /unitas/v1/merge/digests?unit=&type=&ranges=}: 200 with {@code {"unit","type","ranges",
 *       "digests":[[range, rows, hash]…]}}, the non-empty ranges only;</li>
 *   <li>{@code GET /unitas/v1/merge/rows?unit=&type=&ranges=&which=3,17&after=}: 200 with {@code {"unit","type",
 *       "rows":[{"key","state","here"}…],"next"}}, at most {@link #PAGE} rows in key order; {@code next}, when
 *       present, is the {@code after} of the next page.</li>
 * </ul>
 * Answers are bounded: a digests answer by {@link #MAX_RANGES}, a rows answer by {@link #PAGE} rows of at most
 * {@link #MAX_WHICH} ranges.
 */
final class MergeWire {

    static final String DIGESTS = "/unitas/v1/merge/digests";
    static final String ROWS = "/unitas/v1/merge/rows";

    /** The most ranges a copy is cut into: a digests answer is at most this many triples (about 40 bytes each). */
    static final int MAX_RANGES = 16_384;
    /** The most ranges one rows request names (it keeps the query string short). */
    static final int MAX_WHICH = 256;
    /** The most rows one rows answer holds. */
    static final int PAGE = 500;

    private MergeWire() {}

    static byte[] encodeDigests(String unit, String type, int ranges, Map<Integer, RangeDigest> digests) {
        ObjectNode body = HomeReadWire.JSON.createObjectNode().put("unit", unit).put("type", type)
                                           .put("ranges", ranges);
        ArrayNode list = body.putArray("digests");
        new java.util.TreeMap<>(digests).forEach((r, d) -> list.addArray().add(r).add(d.rows()).add(d.hash()));
        return write(body);
    }

    /** The digests in a 200 body that must answer for {@code unit}, {@code type} and {@code ranges}. */
    static Map<Integer, RangeDigest> decodeDigests(byte[] body, String unit, String type, int ranges) {
        JsonNode root = answering(body, "merge digests", unit, type);
        JsonNode list = root.path("digests");
        if (root.path("ranges").asInt() != ranges || !list.isArray()) {
            throw new IllegalArgumentException("merge digests body: ranges " + root.path("ranges") + ", digests "
                                               + list.getNodeType() + " (expected: ranges " + ranges + ", an array)");
        }
        Map<Integer, RangeDigest> digests = new HashMap<>();
        for (JsonNode d : list) {
            if (!d.isArray() || d.size() != 3 || !d.get(0).canConvertToInt() || d.get(0).asInt() < 0
                || d.get(0).asInt() >= ranges || !d.get(1).canConvertToLong() || !d.get(2).canConvertToLong()) {
                throw new IllegalArgumentException("merge digests body: digest " + d
                                                   + " (expected: [range below " + ranges + ", rows, hash])");
            }
            digests.put(d.get(0).asInt(), new RangeDigest(d.get(1).asLong(), d.get(2).asLong()));
        }
        return digests;
    }

    static byte[] encodeRows(String unit, String type, MergeDigests.Page page) {
        ObjectNode body = HomeReadWire.JSON.createObjectNode().put("unit", unit).put("type", type);
        ArrayNode rows = body.putArray("rows");
        page.rows().forEach((key, row) -> rows.addObject().put("key", key).put("state", row.state())
                                              .put("here", row.writtenHere()));
        page.next().ifPresent(next -> body.put("next", next));
        return write(body);
    }

    /** The page in a 200 body that must answer for {@code unit} and {@code type}. */
    static MergeDigests.Page decodeRows(byte[] body, String unit, String type) {
        JsonNode root = answering(body, "merge rows", unit, type);
        JsonNode list = root.path("rows");
        if (!list.isArray() || list.size() > PAGE) {
            throw new IllegalArgumentException("merge rows body: rows " + list.getNodeType() + " of " + list.size()
                                               + " (expected: an array of at most " + PAGE + ")");
        }
        Map<String, MergeDigests.Row> rows = new LinkedHashMap<>();
        for (JsonNode r : list) {
            if (!r.path("key").isTextual() || !r.path("state").isTextual() || !r.path("here").isBoolean()) {
                throw new IllegalArgumentException("merge rows body: row " + r.path("key")
                                                   + " (expected: key text, state base64, here a boolean)");
            }
            rows.put(r.get("key").asText(), new MergeDigests.Row(Base64.getDecoder().decode(r.get("state").asText()),
                                                                  r.get("here").asBoolean()));
        }
        JsonNode next = root.path("next");
        return new MergeDigests.Page(rows, next.isTextual() ? Optional.of(next.asText()) : Optional.empty());
    }

    private static JsonNode answering(byte[] body, String what, String unit, String type) {
        JsonNode root;
        try {
            root = HomeReadWire.JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " body: not valid JSON");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(what + " body: not an object");
        }
        if (!unit.equals(root.path("unit").asText()) || !type.equals(root.path("type").asText())) {
            throw new IllegalArgumentException(what + " body: answers unit '" + root.path("unit").asText()
                                               + "' type '" + root.path("type").asText() + "' (expected: unit '"
                                               + unit + "' type '" + type + "')");
        }
        return root;
    }

    private static byte[] write(ObjectNode body) {
        try {
            return HomeReadWire.JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a tree of text and numbers is always writable
        }
    }
}
