package io.unitas.control;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.server.ServiceRequestContext;

/**
 * {@code GET /api/v1/watch} once the caller is known: parts, resume point ({@code since} or {@code Last-Event-ID}),
 * admission, the event stream and its heartbeat. The control plane and the relay serve it alike, from their own
 * {@link WatchHub}, so a watcher resumes by revision on either.
 */
final class WatchApi {

    static final long HEARTBEAT_SECONDS = 5;
    private static final MediaType EVENT_STREAM = MediaType.parse("text/event-stream");
    private static final HttpData HEARTBEAT = HttpData.ofUtf8(": heartbeat\n\n");

    private final WatchHub hub;
    private final LongSupplier current;

    /** Serves {@code hub}; {@code current} is the newest revision, where a watch without a resume point starts. */
    WatchApi(WatchHub hub, LongSupplier current) {
        this.hub = hub;
        this.current = current;
    }

    /** Streams to {@code token} (a token's name; {@code secret} to check it again when tokens change). */
    HttpResponse serve(ServiceRequestContext ctx, HttpRequest req, String token, String secret) {
        Set<WatchHub.Part> parts;
        try {
            parts = WatchHub.Part.parse(ctx.queryParam("parts"));
        } catch (IllegalArgumentException e) {
            return ControlApi.respond(Outcome.problem(Refusal.Kind.BAD_REQUEST, e.getMessage()));
        }
        long since = -2;
        String sinceText = ctx.queryParam("since");
        if (sinceText != null) {
            try {
                since = Long.parseLong(sinceText);
            } catch (NumberFormatException e) {
                return ControlApi.respond(Outcome.problem(Refusal.Kind.BAD_REQUEST, "since: '" + sinceText
                                                          + "' (expected: a revision >= -1)"));
            }
            if (since < -1) {
                return ControlApi.respond(Outcome.problem(Refusal.Kind.BAD_REQUEST, "since: " + since
                                                          + " (expected: a revision >= -1)"));
            }
        }
        String lastEventId = req.headers().get("last-event-id");
        if (lastEventId != null && !lastEventId.isEmpty()) {
            if (!lastEventId.matches("\\d{1,18}")) {
                return ControlApi.respond(Outcome.problem(Refusal.Kind.BAD_REQUEST, "Last-Event-ID: '"
                        + (lastEventId.length() > 40 ? lastEventId.substring(0, 40) + "..." : lastEventId)
                        + "' (expected: a revision, a whole number >= 0)"));
            }
            since = Long.parseLong(lastEventId); // the browser's resume point wins over the URL it reuses
        }
        if (since < -1) {
            since = Math.max(-1, current.getAsLong() - 1); // no resume point: start with the current state
        }
        WatchHub.Refusal refused = hub.admit(token);
        if (refused != null) {
            return ControlApi.respond(Outcome.problem(refused.kind(), refused.detail()));
        }
        ctx.clearRequestTimeout();
        HttpResponseWriter res = HttpResponse.streaming();
        res.write(ResponseHeaders.builder(HttpStatus.OK).contentType(EVENT_STREAM)
                                 .set(HttpHeaderNames.CACHE_CONTROL, "no-cache").build());
        res.write(HttpData.ofUtf8("retry: 1000\n\n"));
        Executor loop = ctx.eventLoop();
        Runnable unsubscribe = hub.watch(token, secret, parts, since, new WatchHub.Sink() {
            @Override
            public CompletableFuture<?> send(byte[] event) {
                res.tryWrite(HttpData.wrap(event)); // the same bytes for every watcher of this view
                return res.whenConsumed();
            }

            @Override
            public Executor loop() {
                return loop;
            }

            @Override
            public void drop(String why) {
                res.abort();
            }
        });
        ScheduledFuture<?> heartbeat = ctx.eventLoop().scheduleAtFixedRate(
                () -> res.tryWrite(HEARTBEAT), HEARTBEAT_SECONDS, HEARTBEAT_SECONDS, TimeUnit.SECONDS);
        res.whenComplete().handle((ok, error) -> {
            unsubscribe.run();
            heartbeat.cancel(false);
            return null;
        });
        return res;
    }

    /** The secret the request carries: {@code Authorization: Bearer}, else {@code ?access_token=} (RFC 6750 2.3). */
    static String secret(ServiceRequestContext ctx) {
        String header = ctx.request().headers().get(HttpHeaderNames.AUTHORIZATION, "");
        return header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip()
                                                              : ctx.queryParam("access_token");
    }
}
