package io.unitas.control;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;
import com.linecorp.armeria.server.file.FileService;
import com.linecorp.armeria.server.file.HttpFile;

/**
 * The HTTP API under {@code /api/v1} (described by {@code /api/v1/openapi.json}), the watch stream and the
 * console. Translates requests to {@link ControlService} calls after checking the bearer token's role; refusals
 * are {@code application/problem+json} (RFC 9457) and are audited like changes.
 */
final class ControlApi {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ControlApi.class);

    private static final MediaType PROBLEM_JSON = MediaType.parse("application/problem+json");
    private static final MediaType EVENT_STREAM = MediaType.parse("text/event-stream");
    private static final String REASON_HEADER = "x-unitas-reason";
    private static final long HEARTBEAT_SECONDS = 5;
    private static final HttpData HEARTBEAT = HttpData.ofUtf8(": heartbeat\n\n");

    /**
     * A request's body: its text, the document name errors will carry ({@code rules.yaml} when sent as YAML,
     * else {@code rules.json}), and its JSON tree (null for YAML or no body).
     */
    private record Body(String text, String name, JsonNode json) {
        JsonNode path(String field) {
            return json.path(field);
        }
    }

    /** One operation: the authenticated caller, the request's body and the reason it gives. */
    @FunctionalInterface
    private interface Operation {
        Outcome apply(ServiceRequestContext ctx, TokenTable.Principal caller, Body body, String reason);
    }

    private final ControlService service;
    private final TokensFile tokens;
    private final WatchHub hub;

    ControlApi(ControlService service, TokensFile tokens, WatchHub hub) {
        this.service = service;
        this.tokens = tokens;
        this.hub = hub;
    }

    void bind(ServerBuilder sb) {
        bind(sb, HttpMethod.GET, "/api/v1/state", Role.VIEWER, "state.read", (ctx, who, body, why) -> service.state());
        bind(sb, HttpMethod.GET, "/api/v1/whoami", Role.VIEWER, "whoami", (ctx, who, body, why) -> Outcome.ok(
                StateJson.MAPPER.createObjectNode().put("name", who.name()).put("role", who.role().jsonName()), 0));
        bind(sb, HttpMethod.GET, "/api/v1/replica", Role.VIEWER, "replica.read", (ctx, who, body, why) -> Outcome.ok(
                StateJson.MAPPER.createObjectNode().put("leader", service.store().leader())
                                .put("revision", service.store().current().revision()), 0));
        bind(sb, HttpMethod.PUT, "/api/v1/topology", Role.ADMIN, "topology.replace", (ctx, who, body, why) ->
                ifMatch(ctx) == null ? revisionRequired()
                        : service.replaceTopology(who.name(), ifMatch(ctx), "topology" + body.name, body.text, why));
        bind(sb, HttpMethod.PUT, "/api/v1/rules", Role.OPERATOR, "rules.replace", (ctx, who, body, why) ->
                ifMatch(ctx) == null ? revisionRequired()
                        : service.replaceRules(who.name(), ifMatch(ctx), "rules" + body.name, body.text, why));
        bind(sb, HttpMethod.PUT, "/api/v1/health/{region}", Role.REPORTER, "health.report", (ctx, who, body, why) ->
                service.reportHealth(who.name(), ctx.pathParam("region"), body.text));
        bind(sb, HttpMethod.POST, "/api/v1/fences", Role.OPERATOR, "fence.add", (ctx, who, body, why) ->
                service.addFences(who.name(), texts(body.path("units")), body.path("reason").asText(why)));
        bind(sb, HttpMethod.DELETE, "/api/v1/fences/{unit}", Role.OPERATOR, "fence.lift", (ctx, who, body, why) ->
                service.liftFence(who.name(), ctx.pathParam("unit"), why));
        bind(sb, HttpMethod.POST, "/api/v1/switchovers", Role.OPERATOR, "switchover.start", (ctx, who, body, why) ->
                service.startSwitchover(who.name(), body.json));
        bind(sb, HttpMethod.GET, "/api/v1/switchovers/{id}", Role.VIEWER, "switchover.read", (ctx, who, body, why) ->
                service.switchover(ctx.pathParam("id")));
        bind(sb, HttpMethod.POST, "/api/v1/switchovers/{id}/abort", Role.OPERATOR, "switchover.abort",
             (ctx, who, body, why) -> service.abortSwitchover(who.name(), ctx.pathParam("id"),
                                                                body.path("reason").asText(why)));
        bind(sb, HttpMethod.GET, "/api/v1/audit", Role.VIEWER, "audit.read", (ctx, who, body, why) -> service.audit(
                longParam(ctx, "after", 0), (int) Math.min(10_000, longParam(ctx, "limit", 200))));
        sb.route().get("/api/v1/watch").build(this::watch);
        sb.route().get("/api/v1/openapi.json").build(
                HttpFile.of(ControlApi.class.getClassLoader(), "io/unitas/control/openapi.json").asService());
        sb.serviceUnder("/", FileService.builder(ControlApi.class.getClassLoader(), "io/unitas/control/console")
                                        .build());
    }

    private void bind(ServerBuilder sb, HttpMethod method, String path, Role role, String action, Operation op) {
        HttpService service = (ctx, req) -> HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
            try {
                return respond(handle(ctx, agg, role, action, op));
            } catch (RuntimeException e) {
                log.warn("{} {} failed", method, path, e);
                return respond(Outcome.problem(Outcome.Kind.UNAVAILABLE, e.getMessage()));
            }
        }, ctx.blockingTaskExecutor()));
        sb.route().methods(method).path(path).build(service);
    }

    private Outcome handle(ServiceRequestContext ctx, AggregatedHttpRequest req, Role role, String action,
                           Operation op) {
        String reason = req.headers().get(REASON_HEADER, "");
        String target = ctx.path();
        Authorization auth = authorize(ctx, role);
        if (auth.refusal != null) {
            return service.record(auth.actor, action, target, reason, auth.refusal);
        }
        JsonNode body = null;
        String text = req.content(StandardCharsets.UTF_8);
        MediaType type = req.contentType();
        boolean yaml = type != null && type.subtype().contains("yaml");
        if (!text.isBlank() && !yaml) {
            try {
                body = StateJson.parse(text);
            } catch (IllegalArgumentException e) {
                return service.record(auth.actor, action, target, reason,
                                      Outcome.problem(Outcome.Kind.BAD_REQUEST, "body: " + e.getMessage()));
            }
        } else if (text.isBlank() && (req.method() == HttpMethod.PUT
                                      || (req.method() == HttpMethod.POST && !action.endsWith("abort")))) {
            return service.record(auth.actor, action, target, reason,
                                  Outcome.problem(Outcome.Kind.BAD_REQUEST, "body: empty (expected: a JSON document)"));
        }
        return op.apply(ctx, auth.principal, new Body(text, yaml ? ".yaml" : ".json",
                body == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : body), reason);
    }

    /** Who is calling, or why they may not. */
    private record Authorization(TokenTable.Principal principal, String actor, Outcome refusal) {}

    private Authorization authorize(ServiceRequestContext ctx, Role role) {
        String header = ctx.request().headers().get(HttpHeaderNames.AUTHORIZATION, "");
        String secret = header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip()
                        : ctx.queryParam("access_token"); // EventSource cannot set headers (RFC 6750, 2.3)
        if (secret == null || secret.isEmpty()) {
            return new Authorization(null, "anonymous", Outcome.problem(Outcome.Kind.UNAUTHENTICATED,
                    "no bearer token (expected: Authorization: Bearer <token>)"));
        }
        TokenTable.Principal principal = tokens.current().authenticate(secret).orElse(null);
        if (principal == null) {
            return new Authorization(null, "anonymous", Outcome.problem(Outcome.Kind.UNAUTHENTICATED,
                    "unknown bearer token"));
        }
        if (!principal.role().allows(role)) {
            return new Authorization(principal, principal.name(), Outcome.problem(Outcome.Kind.FORBIDDEN,
                    "role " + principal.role().jsonName() + " (expected: " + role.jsonName() + " or above)"));
        }
        return new Authorization(principal, principal.name(), null);
    }

    private static HttpResponse respond(Outcome outcome) {
        if (outcome == null) {
            return HttpResponse.of(HttpStatus.NO_CONTENT);
        }
        ResponseHeadersBuilder headers = ResponseHeaders.builder(outcome.status())
                .contentType(outcome.failed() ? PROBLEM_JSON : MediaType.JSON_UTF_8);
        if (outcome.revision() > 0) {
            headers.set(HttpHeaderNames.ETAG, "\"" + outcome.revision() + "\"");
        }
        if (outcome.kind() == Outcome.Kind.UNAUTHENTICATED) {
            headers.set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"unitas\"");
        }
        return HttpResponse.of(headers.build(), HttpData.ofUtf8(StateJson.write(outcome.body())));
    }

    private static Outcome revisionRequired() {
        return Outcome.problem(Outcome.Kind.REVISION_REQUIRED, "If-Match: missing (expected: the revision this "
                                                               + "change replaces, from GET /api/v1/state)");
    }

    private static String ifMatch(ServiceRequestContext ctx) {
        return ctx.request().headers().get(HttpHeaderNames.IF_MATCH);
    }

    private HttpResponse watch(ServiceRequestContext ctx, com.linecorp.armeria.common.HttpRequest req) {
        Authorization auth = authorize(ctx, Role.VIEWER);
        if (auth.refusal != null) {
            return HttpResponse.of(java.util.concurrent.CompletableFuture.supplyAsync(() -> respond(
                    service.record(auth.actor, "watch", ctx.path(), "", auth.refusal)), ctx.blockingTaskExecutor()));
        }
        java.util.Set<WatchHub.Part> parts;
        try {
            parts = WatchHub.Part.parse(ctx.queryParam("parts"));
        } catch (IllegalArgumentException e) {
            return respond(Outcome.problem(Outcome.Kind.BAD_REQUEST, e.getMessage()));
        }
        long since = longParam(ctx, "since", -2);
        String lastEventId = req.headers().get("last-event-id");
        if (lastEventId != null && !lastEventId.isEmpty()) {
            if (!lastEventId.matches("\\d{1,18}")) {
                return respond(Outcome.problem(Outcome.Kind.BAD_REQUEST, "Last-Event-ID: '"
                        + (lastEventId.length() > 40 ? lastEventId.substring(0, 40) + "..." : lastEventId)
                        + "' (expected: a revision, a whole number >= 0)"));
            }
            since = Long.parseLong(lastEventId); // the browser's resume point wins over the URL it reuses
        }
        if (since < -1) {
            since = service.store().current().revision() - 1; // no resume point: start with the current state
        }
        String token = auth.principal.name();
        WatchHub.Refusal refused = hub.admit(token);
        if (refused != null) {
            return respond(Outcome.problem(refused.kind(), refused.detail()));
        }
        ctx.clearRequestTimeout();
        HttpResponseWriter res = HttpResponse.streaming();
        res.write(ResponseHeaders.builder(HttpStatus.OK).contentType(EVENT_STREAM)
                                 .set(HttpHeaderNames.CACHE_CONTROL, "no-cache").build());
        res.write(HttpData.ofUtf8("retry: 1000\n\n"));
        String header = ctx.request().headers().get(HttpHeaderNames.AUTHORIZATION, "");
        String secret = header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip()
                        : ctx.queryParam("access_token");
        Runnable unsubscribe = hub.watch(token, secret, parts, since, new WatchHub.Sink() {
            @Override
            public java.util.concurrent.CompletableFuture<?> send(byte[] event) {
                res.tryWrite(HttpData.wrap(event)); // the same bytes for every watcher of this view
                return res.whenConsumed();
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

    private static long longParam(ServiceRequestContext ctx, String name, long otherwise) {
        String value = ctx.queryParam(name);
        try {
            return value == null ? otherwise : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
