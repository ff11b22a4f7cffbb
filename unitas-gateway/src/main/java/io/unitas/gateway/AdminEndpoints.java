package io.unitas.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.function.Supplier;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.state.RoutingState;

/**
 * The gateway's own two endpoints, {@code /metrics} and {@code /unitas/healthz}, and who may see what of them
 * ({@link GatewayConfig.Admin}): one place that answers for the traffic port and for the admin listener alike.
 */
final class AdminEndpoints {

    static final String HEALTH_PATH = "/unitas/healthz";
    static final String METRICS_PATH = "/metrics";

    private final GatewayConfig.Admin admin;
    /** The bearer token's bytes, or {@code null} when none is asked for. */
    private final byte[] token;
    private final GatewayMetrics metrics;
    private final Supplier<RoutingState> state;
    private final CharSequence servedByHeader;
    private final String self;

    AdminEndpoints(GatewayConfig.Admin admin, GatewayMetrics metrics, Supplier<RoutingState> state,
                   CharSequence servedByHeader, String self) {
        this.admin = admin;
        this.token = admin.tokenFile() == null ? null : readToken(admin);
        this.metrics = metrics;
        this.state = state;
        this.servedByHeader = servedByHeader;
        this.self = self;
    }

    private static byte[] readToken(GatewayConfig.Admin admin) {
        SecretFiles.checkPrivate(admin.tokenFile(), "admin.token_file");
        String text;
        try {
            text = Files.readString(admin.tokenFile(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("admin.token_file: cannot read " + admin.tokenFile(), e);
        }
        if (text.length() < 16 || text.chars().anyMatch(c -> c <= ' ' || c > '~')) {
            throw new IllegalArgumentException("admin.token_file: " + admin.tokenFile() + " (expected: one token of at"
                                               + " least 16 printable characters, no spaces)");
        }
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The traffic port's answer at {@code path}, or {@code null} when the path is proxied: the bare health answer to
     * anyone, its details and {@code /metrics} only as {@link GatewayConfig.Admin} allows here.
     */
    FullHttpResponse onTraffic(String path, HttpHeaders headers) {
        if (path.equals(HEALTH_PATH)) {
            return health(admin.listen() == null && allowed(headers));
        }
        if (path.equals(METRICS_PATH) && admin.listen() == null) {
            return allowed(headers) ? metrics() : unauthorized();
        }
        return null;
    }

    /** The admin listener's answer at {@code path}: both endpoints, whole, to a holder of the token if one is set. */
    FullHttpResponse onAdmin(String path, HttpHeaders headers) {
        if (!path.equals(HEALTH_PATH) && !path.equals(METRICS_PATH)) {
            return text(HttpResponseStatus.NOT_FOUND, "text/plain; charset=utf-8",
                        "not found (expected: " + METRICS_PATH + " or " + HEALTH_PATH + ")\n");
        }
        if (!allowed(headers)) {
            return unauthorized();
        }
        return path.equals(HEALTH_PATH) ? health(true) : metrics();
    }

    private boolean allowed(HttpHeaders headers) {
        if (token == null) {
            return true;
        }
        String auth = headers.get(HttpHeaderNames.AUTHORIZATION);
        if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        // constant time: the comparison says nothing of how much of a guess was right
        return MessageDigest.isEqual(auth.substring(7).strip().getBytes(StandardCharsets.US_ASCII), token);
    }

    private FullHttpResponse health(boolean details) {
        if (state.get() == null) {
            return text(HttpResponseStatus.SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", "no routing state");
        }
        return text(HttpResponseStatus.OK, "text/plain; charset=utf-8",
                    details ? "ok\n" + metrics.watchHealth() + metrics.reachabilityHealth() : "ok\n");
    }

    private FullHttpResponse metrics() {
        return text(HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
    }

    private FullHttpResponse unauthorized() {
        FullHttpResponse res = text(HttpResponseStatus.UNAUTHORIZED, "application/problem+json",
                "{\"type\":\"urn:unitas:problem:unauthorized\",\"title\":\"a bearer token is needed\",\"status\":401,"
                + "\"detail\":\"the gateway's " + METRICS_PATH + " and health details need Authorization: Bearer and"
                + " the token of admin.token_file\"}");
        res.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        return res;
    }

    /** A plain-text answer of the gateway's own, stamped as every answer it gives. */
    FullHttpResponse plain(HttpResponseStatus status, String body) {
        return text(status, "text/plain; charset=utf-8", body);
    }

    private FullHttpResponse text(HttpResponseStatus status, String type, String body) {
        return Proxy.whole(status, type, body.getBytes(StandardCharsets.UTF_8), servedByHeader, self);
    }
}
