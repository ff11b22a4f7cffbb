package io.unitas.control.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/** {@link ControlClient} on the JDK's HTTP client. */
final class HttpControlClient implements ControlClient {

    private final URI server;
    private final ControlClient.Builder config;
    private final HttpClient http;

    HttpControlClient(ControlClient.Builder config) {
        this.server = Transport.check(config.server, config.allowInsecure);
        this.config = config;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(config.connectTimeout)
                                         .version(HttpClient.Version.HTTP_1_1);
        if (config.ca != null) {
            b.sslContext(Transport.trusting(config.ca));
        }
        this.http = b.build();
    }

    URI server() {
        return server;
    }

    HttpClient http() {
        return http;
    }

    /** A request to {@code path} with the bearer token and the headers' timeout. */
    HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(server.resolve(path)).timeout(config.requestTimeout);
        String token = config.token.get();
        if (token != null && !token.isEmpty()) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    @Override
    public ControlResponse send(String method, String path, String json, Map<String, String> headers) {
        HttpRequest.Builder b = request(path).method(method, json == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null && headers.keySet().stream().noneMatch("content-type"::equalsIgnoreCase)) {
            b.header("Content-Type", "application/json");
        }
        headers.forEach(b::header);
        try {
            HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            String etag = res.headers().firstValue("etag").orElse("").replace("\"", "");
            return new ControlResponse(res.statusCode(), res.body(),
                                       etag.matches("\\d{1,18}") ? Long.parseLong(etag) : 0);
        } catch (ConnectException e) {
            throw new UncheckedIOException(Transport.shown(server) + ": cannot connect (is the control plane running?)", e);
        } catch (HttpTimeoutException e) {
            throw new UncheckedIOException(Transport.shown(server) + path + ": no answer within " + config.requestTimeout.toMillis()
                                           + " ms", e);
        } catch (IOException e) {
            throw new UncheckedIOException(Transport.shown(server) + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public Watch watch(long since, Set<Part> parts, Consumer<WatchEvent> onState) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("parts: none (expected: config, health or both)");
        }
        return new WatchLoop(this, since, parts, onState, config);
    }
}
