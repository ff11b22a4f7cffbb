package io.unitas.gateway;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * One of the gateway's own error answers, an RFC 9457 problem detail ({@code application/problem+json}) with a type
 * naming the condition ({@code write-fenced}, {@code no-healthy-region}) and a detail naming the unit or region.
 *
 * @param status            the HTTP status
 * @param type              the problem type's name, after {@link #TYPE_BASE}
 * @param detail            what happened, naming the unit or region
 * @param retryAfterSeconds sent as {@code Retry-After} when above 0
 */
record Problem(int status, String type, String detail, long retryAfterSeconds) {

    /** The problem type URI is this plus the type name, as everywhere in unitas. */
    static final String TYPE_BASE = "urn:unitas:problem:";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The response, stamped with {@code servedByHeader: region} like every answer of the gateway. */
    FullHttpResponse toResponse(CharSequence servedByHeader, String region) {
        ObjectNode body = JSON.createObjectNode()
                              .put("type", TYPE_BASE + type)
                              .put("title", type.replace('-', ' '))
                              .put("status", status)
                              .put("detail", detail);
        FullHttpResponse res = Proxy.whole(HttpResponseStatus.valueOf(status), "application/problem+json",
                                           body.toString().getBytes(StandardCharsets.UTF_8), servedByHeader, region);
        if (retryAfterSeconds > 0) {
            res.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        return res;
    }
}
