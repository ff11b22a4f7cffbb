package io.unitas.gateway;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;

/**
 * The gateway's own error answers: a {@link ProblemDetail} naming the condition ({@code write-fenced},
 * {@code no-healthy-region}) and the unit or region, as {@code application/problem+json} (RFC 9457), or, for a gRPC
 * client, as a gRPC status, which is all its stubs can read.
 */
final class ProblemAnswers {

    private ProblemAnswers() {}

    /** The HTTP answer, stamped with {@code servedByHeader: region} like every answer of the gateway. */
    static FullHttpResponse http(ProblemDetail problem, CharSequence servedByHeader, String region) {
        FullHttpResponse res = Proxy.whole(HttpResponseStatus.valueOf(problem.status()), ProblemJson.MEDIA_TYPE,
                                           ProblemJson.encode(problem), servedByHeader, region);
        retryAfter(problem, res);
        return res;
    }

    /**
     * The answer for a gRPC client: HTTP 200 with headers only (gRPC's "trailers-only" answer), {@code grpc-status}
     * mapped from the HTTP status as gRPC maps them, {@code grpc-message} the problem type and detail.
     */
    static FullHttpResponse grpc(ProblemDetail problem, CharSequence servedByHeader, String region) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                                                           Unpooled.EMPTY_BUFFER);
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/grpc")
           .setInt("grpc-status", grpcStatus(problem.status()))
           .set("grpc-message", percentEncoded(problem.type() + ": " + problem.detail()))
           .set(servedByHeader, region);
        retryAfter(problem, res);
        return res;
    }

    private static void retryAfter(ProblemDetail problem, FullHttpResponse res) {
        if (problem.retryAfterSeconds() > 0) {
            res.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(problem.retryAfterSeconds()));
        }
    }

    /** The innermost cause's message: what went wrong, not the layers it came wrapped in (as TLS failures do). */
    static String reason(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    /** gRPC's mapping of HTTP statuses (its http-grpc-status-mapping document): UNAVAILABLE is what clients retry. */
    static int grpcStatus(int httpStatus) {
        return switch (httpStatus) {
            case 400 -> 13; // INTERNAL
            case 401 -> 16; // UNAUTHENTICATED
            case 403 -> 7;  // PERMISSION_DENIED
            case 404 -> 12; // UNIMPLEMENTED
            case 429, 502, 503, 504 -> 14; // UNAVAILABLE
            default -> 2;   // UNKNOWN
        };
    }

    /** {@code grpc-message}'s encoding: UTF-8, with bytes outside printable ASCII and {@code %} as {@code %XX}. */
    static String percentEncoded(String message) {
        StringBuilder out = new StringBuilder(message.length());
        for (byte b : message.getBytes(StandardCharsets.UTF_8)) {
            if (b >= 0x20 && b <= 0x7e && b != '%') {
                out.append((char) b);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                   .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
