package io.unitas.playground;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.unitas.config.ProblemJson;

/** A blocking client of the shop's API, as a virtual user (or a test) calls it through a gateway or directly. */
final class ShopClient {

    /**
     * One answer: status ({@code 0} when the exchange failed), JSON body, serving region, problem type, and the
     * seconds of its Retry-After ({@code -1} without one).
     */
    record Reply(int status, JsonNode body, String servedBy, String problem, long retryAfterSeconds) {

        Reply(int status, JsonNode body, String servedBy, String problem) {
            this(status, body, servedBy, problem, -1);
        }

        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** A 5xx or a failed exchange: worth retrying, possibly elsewhere. */
        boolean failed() {
            return status == 0 || status >= 500;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final Duration timeout;

    ShopClient(Duration timeout) {
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
        this.timeout = timeout;
    }

    Reply register(URI base, String user) {
        return send(base, "POST", "/register", user, null, null, "{\"name\":\"user " + user + "\"}");
    }

    Reply login(URI base, String user) {
        return send(base, "POST", "/login", user, null, null, "{}");
    }

    Reply addToCart(URI base, String user, String token, String item, int quantity) {
        return send(base, "POST", "/cart/items", user, token, null,
                    "{\"item\":\"" + item + "\",\"quantity\":" + quantity + "}");
    }

    Reply cart(URI base, String user, String token) {
        return send(base, "GET", "/cart", user, token, null, null);
    }

    Reply checkout(URI base, String user, String token, String key, String payload) {
        return send(base, "POST", "/checkout", user, token, key, payload);
    }

    Reply orders(URI base, String user, String token) {
        return send(base, "GET", "/orders", user, token, null, null);
    }

    private Reply send(URI base, String method, String path, String user, String token, String key, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout)
                                           .header(ShopServer.USER_HEADER, user)
                                           .header("content-type", "application/json")
                                           .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                                                                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("authorization", "Bearer " + token);
        }
        if (key != null) {
            b.header("idempotency-key", key);
        }
        try {
            HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = parse(res.body());
            return new Reply(res.statusCode(), json, res.headers().firstValue(ShopServer.REGION_HEADER).orElse(""),
                             problemType(res),
                             retryAfterSeconds(res.headers().firstValue("retry-after").orElse("")));
        } catch (IOException e) {
            return new Reply(0, MissingNode.getInstance(), "", "exchange-failed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply(0, MissingNode.getInstance(), "", "interrupted");
        }
    }

    /**
     * The unitas problem type of an error answer, read by the one problem codec; empty for a success, a body that is
     * no problem, or a problem type that is not unitas's (its type is then a whole URI).
     */
    private static String problemType(HttpResponse<String> res) {
        if (res.statusCode() < 400) {
            return "";
        }
        try {
            String type = ProblemJson.decode(res.body().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                             res.statusCode(), Duration.ZERO).type();
            return type.indexOf(':') >= 0 ? "" : type;
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    /** Retry-After in delta-seconds (RFC 9110 §10.2.3); -1 when absent or an HTTP date, which no unitas piece sends. */
    private static long retryAfterSeconds(String header) {
        try {
            return header.isEmpty() ? -1 : Math.max(0, Long.parseLong(header.trim()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static JsonNode parse(String body) {
        try {
            return body.isBlank() ? MissingNode.getInstance() : JSON.readTree(body);
        } catch (IOException e) {
            return MissingNode.getInstance();
        }
    }
}
