package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.core.crdt.Dot;
import io.unitas.core.crdt.OrMap;
import io.unitas.core.crdt.VersionVector;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoredResponse;
import io.unitas.data.reconcile.Compensation;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Encodes the stored entities as change payloads, and carts for their column: form-encoded {@code name=value}
 * pairs ({@code user=alice&unit=u-1&…}), readable in the database and independent of any library.
 */
final class ChangeCodec {

    private static final Comparator<CartLine> LINE_ORDER =
            Comparator.comparing(CartLine::item).thenComparingInt(CartLine::quantity);

    private ChangeCodec() {}

    static String account(Account a) {
        return encode("user", a.userId(), "unit", a.unit(), "home", a.home().id(), "name", a.name(),
                      "registered_at", millis(a.registeredAt()));
    }

    static Account account(String payload) {
        Map<String, List<String>> f = decode(payload);
        return new Account(one(f, "user"), one(f, "unit"), Region.of(one(f, "home")), one(f, "name"),
                           instant(f, "registered_at"));
    }

    static String session(Session s) {
        return encode("token", s.token(), "user", s.userId(), "expires_at", millis(s.expiresAt()));
    }

    static Session session(String payload) {
        Map<String, List<String>> f = decode(payload);
        return new Session(one(f, "token"), one(f, "user"), instant(f, "expires_at"));
    }

    static String idempotency(IdempotencyRecord r) {
        String common = encode("key", r.key(), "user", r.userId(), "payload_hash", r.payloadHash(),
                               "created_at", millis(r.createdAt()), "expires_at", millis(r.expiresAt()));
        return r.inFlight() ? common : common + "&" + encode("status", String.valueOf(r.response().status()),
                                                              "body", r.response().body());
    }

    static IdempotencyRecord idempotency(String payload) {
        Map<String, List<String>> f = decode(payload);
        StoredResponse response = f.containsKey("status")
                                  ? new StoredResponse(Integer.parseInt(one(f, "status")), one(f, "body")) : null;
        return new IdempotencyRecord(one(f, "key"), one(f, "user"), one(f, "payload_hash"), response,
                                     instant(f, "created_at"), instant(f, "expires_at"));
    }

    static String order(Order o) {
        return encode("order", o.orderId(), "user", o.userId(), "key", o.idempotencyKey(), "payload", o.payload(),
                      "created_at", millis(o.createdAt()));
    }

    static Order order(String payload) {
        Map<String, List<String>> f = decode(payload);
        return new Order(one(f, "order"), one(f, "user"), one(f, "key"), one(f, "payload"), instant(f, "created_at"));
    }

    static String compensation(Compensation c) {
        return encode("order", c.duplicateId(), "kept", c.keptId(), "key", c.key(), "user", c.owner(),
                      "reason", c.reason(), "at", millis(c.at()));
    }

    static Compensation compensation(String payload) {
        Map<String, List<String>> f = decode(payload);
        return new Compensation(one(f, "order"), one(f, "kept"), one(f, "key"), one(f, "user"), one(f, "reason"),
                                instant(f, "at"));
    }

    /** {@code context=cn:3,eu:1} then, per line (an item at one quantity), {@code item=…&quantity=…&dots=cn:2,eu:1}. */
    static String cart(Cart cart) {
        List<String> context = new ArrayList<>();
        cart.state().context().counters().forEach((replica, counter) -> context.add(replica + ":" + counter));
        StringBuilder out = new StringBuilder(encode("context", String.join(",", context)));
        cart.lines().stream()
            .sorted(LINE_ORDER)
            .forEach(line -> out.append('&').append(encode(
                    "item", line.item(), "quantity", String.valueOf(line.quantity()),
                    "dots", String.join(",", cart.dots(line).stream().map(Dot::toString).sorted().toList()))));
        return out.toString();
    }

    static Cart cart(String payload) {
        Map<String, List<String>> f = decode(payload);
        Map<String, Long> context = new TreeMap<>();
        dots(one(f, "context")).forEach(d -> context.put(d.replica(), d.counter()));
        List<String> items = f.getOrDefault("item", List.of());
        Map<String, Map<Dot, Integer>> entries = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            CartLine line = new CartLine(items.get(i), Integer.parseInt(f.get("quantity").get(i)));
            Map<Dot, Integer> writes = entries.computeIfAbsent(line.item(), item -> new HashMap<>());
            for (Dot dot : dots(f.get("dots").get(i))) {
                writes.put(dot, line.quantity());
            }
        }
        return Cart.of(OrMap.of(Cart.LARGER, entries, VersionVector.of(context)));
    }

    static String millis(Instant instant) {
        return String.valueOf(instant.toEpochMilli());
    }

    /** {@code cn:3,eu:1} as dots; empty text is none. */
    private static List<Dot> dots(String text) {
        List<Dot> dots = new ArrayList<>();
        if (!text.isEmpty()) {
            for (String part : text.split(",")) {
                int colon = part.lastIndexOf(':');
                dots.add(new Dot(part.substring(0, colon), Long.parseLong(part.substring(colon + 1))));
            }
        }
        return dots;
    }

    private static String encode(String... namesAndValues) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (i > 0) {
                out.append('&');
            }
            out.append(namesAndValues[i]).append('=')
               .append(URLEncoder.encode(namesAndValues[i + 1], StandardCharsets.UTF_8));
        }
        return out.toString();
    }

    private static Map<String, List<String>> decode(String payload) {
        Map<String, List<String>> fields = new HashMap<>();
        for (String pair : payload.split("&")) {
            int eq = pair.indexOf('=');
            fields.computeIfAbsent(pair.substring(0, eq), k -> new ArrayList<>())
                  .add(URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return fields;
    }

    private static String one(Map<String, List<String>> fields, String name) {
        List<String> values = fields.get(name);
        if (values == null) {
            throw new IllegalArgumentException("payload: no field '" + name + "' (expected: " + fields.keySet()
                                               + " to include it)");
        }
        return values.get(0);
    }

    private static Instant instant(Map<String, List<String>> fields, String name) {
        return Instant.ofEpochMilli(Long.parseLong(one(fields, name)));
    }
}
