package io.unitas.control.client.internal;

import java.net.URI;
import java.util.Map;

import io.unitas.control.client.ControlClient;

/**
 * Raw requests to a control plane, for what the typed methods do not cover on purpose: tests of the server's own
 * HTTP handling (malformed bodies, headers, limits) and a health push to a receiver given as a URL. Not promised.
 */
public interface RawClient extends ControlClient {

    /** A raw client of the control plane at {@code server} using {@code token}. */
    static RawClient of(URI server, String token) {
        return of(ControlClient.of(server, token));
    }

    /** {@code client}'s raw side. */
    static RawClient of(ControlClient client) {
        if (client instanceof RawClient raw) {
            return raw;
        }
        throw new IllegalArgumentException("client: " + client.getClass().getName()
                                           + " (expected: one built by ControlClient.builder)");
    }

    /** Any request; {@code json} may be null; {@code headers} are added (for example {@code X-Unitas-Reason}). */
    ControlResponse send(String method, String path, String json, Map<String, String> headers);

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
}
