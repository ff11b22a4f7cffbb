package io.unitas.gateway;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;

/**
 * A real HTTP service for end-to-end tests, on a free loopback port, speaking HTTP/1.1 and h2c: answers
 * {@code /healthz} with 200 (or 503 when told it is sick) and every other request with a one-line description of
 * what it received (its own name, method, the unitas headers, the protocol and the body's length), or with
 * {@code status} when told to fail. Counts requests by method.
 */
final class Backend implements AutoCloseable {

    final String name;
    private final Server server;
    private final AtomicInteger gets = new AtomicInteger();
    private final AtomicInteger posts = new AtomicInteger();
    private volatile int failWith;
    private volatile Duration delay = Duration.ZERO;
    private volatile boolean healthy = true;
    private volatile HttpResponseWriter tap;

    Backend(String name) {
        this(name, null);
    }

    /** Over TLS with {@code certificate} (HTTP/1.1 and HTTP/2 by ALPN) when it is given. */
    Backend(String name, TestCertificate certificate) {
        this.name = name;
        ServerBuilder b = Server.builder();
        if (certificate == null) {
            b.http(0);
        } else {
            b.https(0).tls(certificate.cert().toFile(), certificate.key().toFile());
        }
        this.server = b.maxRequestLength(0)
                       .gracefulShutdownTimeoutMillis(0, 0)
                       .service("/healthz", (ctx, req) -> healthy
                               ? HttpResponse.of("ok") : HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE))
                       .service("/stream", (ctx, req) -> stream(ctx, ctx.queryParams()))
                       .service("/bytes", (ctx, req) -> bytes(ctx.queryParams()))
                       .service("/tap", (ctx, req) -> tap())
                       .serviceUnder("/", (ctx, req) -> HttpResponse.delayed(HttpResponse.of(
                               req.aggregate().thenApply(r -> answer(r, ctx.sessionProtocol()))), delay))
                       .build();
        server.start().join();
    }

    private HttpResponse answer(AggregatedHttpRequest req, SessionProtocol protocol) {
        RequestHeaders h = req.headers();
        (h.method().name().equals("GET") ? gets : posts).incrementAndGet();
        if (failWith != 0) {
            return HttpResponse.of(HttpStatus.valueOf(failWith), MediaType.PLAIN_TEXT_UTF_8, "failing " + name);
        }
        String line = "backend=" + name + " method=" + h.method() + " path=" + h.path()
                      + " unit=" + h.get("x-unitas-unit") + " region=" + h.get("x-unitas-region")
                      + " origin=" + h.get("x-unitas-origin") + " hops=" + h.get("x-unitas-hops")
                      + " n-d-region=" + h.get("n-d-region") + " user=" + h.getAll("x-user-id")
                      + " protocol=" + protocol.uriText()
                      + " body=" + req.content().length();
        return HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, line);
    }

    /** {@code pieces} lines, one every {@code every} ms, the first at once: a streaming answer such as SSE's. */
    private static HttpResponse stream(ServiceRequestContext ctx, QueryParams params) {
        int pieces = params.getInt("pieces", 1);
        long every = params.getLong("every", 100);
        HttpResponseWriter res = HttpResponse.streaming();
        res.write(ResponseHeaders.of(HttpStatus.OK, HttpHeaderNames.CONTENT_TYPE, MediaType.PLAIN_TEXT_UTF_8));
        for (int i = 0; i < pieces; i++) {
            int n = i;
            ctx.eventLoop().schedule(() -> {
                if (res.tryWrite(HttpData.ofUtf8("piece " + n + "\n")) && n == pieces - 1) {
                    res.close();
                }
            }, n * every, TimeUnit.MILLISECONDS);
        }
        return res;
    }

    /** A streaming answer whose pieces the test writes with {@link #tapWrite}, its head at once. */
    private HttpResponse tap() {
        HttpResponseWriter res = HttpResponse.streaming();
        res.write(ResponseHeaders.of(HttpStatus.OK, HttpHeaderNames.CONTENT_TYPE, MediaType.PLAIN_TEXT_UTF_8));
        tap = res;
        return res;
    }

    /** Whether a {@code /tap} answer has been started. */
    boolean tapped() {
        return tap != null;
    }

    /** Writes one line to the latest {@code /tap} answer. */
    void tapWrite(String line) {
        tap.tryWrite(HttpData.ofUtf8(line + "\n"));
    }

    /** Ends the latest {@code /tap} answer. */
    void tapClose() {
        tap.close();
    }

    /** A body of {@code n} bytes, counted as a GET. */
    private HttpResponse bytes(QueryParams params) {
        gets.incrementAndGet();
        return HttpResponse.of(HttpStatus.OK, MediaType.OCTET_STREAM, new byte[params.getInt("n", 1)]);
    }

    /** {@code 127.0.0.1:port}. */
    String endpoint() {
        return "127.0.0.1:" + server.activeLocalPort();
    }

    /** Answers every non-health request with {@code status} from now on (0: answer normally). */
    void failWith(int status) {
        this.failWith = status;
    }

    /** Holds every non-health answer back this long from now on. */
    void delay(Duration delay) {
        this.delay = delay;
    }

    /** Makes {@code /healthz} answer 200 (true) or 503 (false). */
    void healthy(boolean healthy) {
        this.healthy = healthy;
    }

    int gets() {
        return gets.get();
    }

    int writes() {
        return posts.get();
    }

    @Override
    public void close() {
        server.stop().join();
    }
}
