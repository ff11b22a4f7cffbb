package io.unitas.gateway;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;

/**
 * The gateway's own error answers as RFC 9457 problem details ({@code application/problem+json}), with a type
 * naming the condition ({@code write-fenced}, {@code no-healthy-region}) and a detail naming the unit or region.
 */
final class ProblemResponses {

    /** The problem type URI is this plus the type name, as everywhere in unitas. */
    static final String TYPE_BASE = "urn:unitas:problem:";

    private static final MediaType PROBLEM_JSON = MediaType.parse("application/problem+json");

    private static final ObjectMapper JSON = new ObjectMapper();

    private ProblemResponses() {
    }

    /** A problem response; {@code retryAfterSeconds} > 0 adds {@code Retry-After}. */
    static HttpResponse of(HttpStatus status, String type, String detail, CharSequence servedByHeader, String region,
                           long retryAfterSeconds) {
        ResponseHeadersBuilder h = ResponseHeaders.builder(status).contentType(PROBLEM_JSON);
        if (retryAfterSeconds > 0) {
            h.set(HttpHeaderNames.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        if (servedByHeader != null) {
            h.set(servedByHeader, region);
        }
        ObjectNode body = JSON.createObjectNode()
                .put("type", TYPE_BASE + type)
                .put("title", type.replace('-', ' '))
                .put("status", status.code())
                .put("detail", detail);
        return HttpResponse.of(h.build(), HttpData.wrap(body.toString().getBytes(StandardCharsets.UTF_8)));
    }
}
