package io.unitas.control.client;

import java.net.URI;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A client of the control plane's HTTP API, for {@code unitas ctl}, gateways and SDKs: plain requests with the
 * bearer token, and a watch that delivers every new state in revision order and reconnects by itself, resuming
 * after the last revision it delivered.
 */
public interface ControlClient {

    /** A client of the control plane at {@code server} ({@code http://127.0.0.1:7070}) using {@code token}. */
    static ControlClient of(URI server, String token) {
        return new HttpControlClient(server, token);
    }

    /** {@code GET path}. */
    default ControlResponse get(String path) {
        return send("GET", path, null, Map.of());
    }

    /** {@code POST path} with a JSON body. */
    default ControlResponse post(String path, String json) {
        return send("POST", path, json, Map.of());
    }

    /** {@code PUT path} of a JSON document replacing revision {@code ifMatch}. */
    default ControlResponse put(String path, String json, long ifMatch) {
        return send("PUT", path, json, Map.of("If-Match", "\"" + ifMatch + "\""));
    }

    /** Any request; {@code json} may be null; {@code headers} are added (for example {@code X-Unitas-Reason}). */
    ControlResponse send(String method, String path, String json, Map<String, String> headers);

    /**
     * Streams every state after revision {@code since} ({@code -1}: from the current one) to {@code onState}, in
     * order, on one background thread, reconnecting after a drop with the last delivered revision. Closing the
     * returned handle stops it.
     */
    AutoCloseable watch(long since, Consumer<WatchEvent> onState);

    /** One server-sent state: its revision and the state's JSON. */
    record WatchEvent(long revision, String json) {}
}
