package io.unitas.control;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.endpoint.PoolFormat;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.ContentTooLargeException;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpResponseWriter;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.common.util.Exceptions;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServerErrorHandler;
import com.linecorp.armeria.server.ServiceConfig;
import com.linecorp.armeria.server.ServiceRequestContext;
import com.linecorp.armeria.server.file.FileService;
import com.linecorp.armeria.server.file.HttpFile;

import io.unitas.config.internal.DurationFormat;
import io.unitas.control.client.internal.WireJson;
import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.config.ProblemJson;
import io.unitas.core.Problem;
import io.unitas.core.fence.FencePolicy;

/**
 * The HTTP API under {@code /api/v1} (described by {@code /api/v1/openapi.json}), the watch stream and the
 * console: the one place of HTTP, JSON, {@code If-Match} and status codes. Checks the bearer token's role (and a
 * reporter's region) from the headers before reading any of the body, reads the body up to its route's limit,
 * translates it to a typed {@link ControlService} command and its {@link ChangeResult} to a response; refusals are
 * {@code application/problem+json} (RFC 9457) and are audited like changes.
 */
final class ControlApi {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ControlApi.class);

    private static final MediaType PROBLEM_JSON = MediaType.parse(ProblemJson.MEDIA_TYPE);
    private static final MediaType EVENT_STREAM = MediaType.parse("text/event-stream");
    private static final String REASON_HEADER = "x-unitas-reason";
    private static final long HEARTBEAT_SECONDS = 5;
    private static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            + "frame-ancestors 'none'";
    /** The most a topology or rules document may weigh. */
    static final long DOCUMENT_BYTES = 1024 * 1024;
    /** The most any other body may weigh: a health report, a fence, a switchover request. */
    static final long SMALL_BYTES = 64 * 1024;
    private static final HttpData HEARTBEAT = HttpData.ofUtf8(": heartbeat\n\n");

    /**
     * A request's body: its text, the document name errors will carry ({@code rules.yaml} when sent as YAML,
     * else {@code rules.json}), and its JSON tree (null for YAML or no body).
     */
    private record Body(String text, String suffix, JsonNode json) {
        JsonNode path(String field) {
            return json.path(field);
        }

        ControlService.Document document(String stem) {
            return new ControlService.Document(stem + suffix, text);
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
    private final WatchApi watches;
    private final GuessThrottle guesses;
    /** The fallback address pool in its binary form ({@link PoolFormat}); without addresses when none is given. */
    private final byte[] pool;
    /** The consistency contract the control plane was started with: its staleness budgets, shown against the lag. */
    private final ConsistencyContract contract;

    ControlApi(ControlService service, TokensFile tokens, WatchHub hub, GuessThrottle guesses, byte[] pool,
               ConsistencyContract contract) {
        this.pool = pool;
        this.contract = contract;
        this.guesses = guesses;
        this.service = service;
        this.tokens = tokens;
        this.hub = hub;
        this.watches = new WatchApi(hub, () -> service.store().current().revision());
    }

    void bind(ServerBuilder sb) {
        bind(sb, HttpMethod.GET, "/api/v1/state", Role.VIEWER, "state.read", (ctx, who, body, why) -> {
            ControlState s = service.state();
            return Outcome.ok(StateJson.view(s), s.revision());
        });
        bind(sb, HttpMethod.GET, "/api/v1/whoami", Role.VIEWER, "whoami", (ctx, who, body, why) -> Outcome.ok(
                StateJson.MAPPER.createObjectNode().put("name", who.name()).put("role", who.role().jsonName()), 0));
        bind(sb, HttpMethod.GET, "/api/v1/replica", Role.VIEWER, "replica.read", (ctx, who, body, why) -> Outcome.ok(
                StateJson.MAPPER.createObjectNode().put("leader", service.store().leader())
                                .put("revision", service.store().current().revision()), 0));
        bind(sb, HttpMethod.GET, "/api/v1/budgets", Role.VIEWER, "budgets.read", (ctx, who, body, why) -> {
            ControlState s = service.state();
            return Outcome.ok(WireJson.budgetsTree(BudgetsView.of(contract, s)), s.revision());
        });
        bind(sb, HttpMethod.GET, "/api/v1/fallback-pool", Role.VIEWER, "fallback-pool.read",
             (ctx, who, body, why) -> fallbackPool());
        bind(sb, HttpMethod.PUT, "/api/v1/topology", Role.ADMIN, "topology.replace", (ctx, who, body, why) ->
                replacement(ctx, who, "topology.replace", "topology", why, revision -> service.replaceTopology(
                        who.name(), revision, body.document("topology"), why)));
        bind(sb, HttpMethod.PUT, "/api/v1/rules", Role.OPERATOR, "rules.replace", (ctx, who, body, why) ->
                replacement(ctx, who, "rules.replace", "rules", why, revision -> service.replaceRules(
                        who.name(), revision, body.document("rules"), why)));
        bind(sb, HttpMethod.PUT, "/api/v1/failover", Role.ADMIN, "failover.replace", (ctx, who, body, why) ->
                replacement(ctx, who, "failover.replace", "failover", why, revision -> service.replaceFailover(
                        who.name(), revision, body.document("failover"), why)));
        bind(sb, HttpMethod.POST, "/api/v1/proposals/{id}/accept", Role.OPERATOR, "proposal.accept",
             (ctx, who, body, why) -> outcome(service.acceptProposal(who.name(), ctx.pathParam("id"),
                                                                       body.path("reason").asText(why))));
        bind(sb, HttpMethod.PUT, "/api/v1/health/{region}", Role.REPORTER, "health.report", (ctx, who, body, why) ->
                outcome(service.reportHealth(who.name(), ctx.pathParam("region"), body.document("health"))));
        bind(sb, HttpMethod.POST, "/api/v1/health/{region}/unreachable", Role.OBSERVER, "health.unreachable",
             (ctx, who, body, why) -> unreachable(who, ctx.pathParam("region"), body.json()));
        bind(sb, HttpMethod.DELETE, "/api/v1/health/{region}", Role.ADMIN, "health.reset", (ctx, who, body, why) ->
                outcome(service.resetHealth(who.name(), ctx.pathParam("region"), why)));
        bind(sb, HttpMethod.POST, "/api/v1/fences", Role.OPERATOR, "fence.add", (ctx, who, body, why) ->
                addFences(who, body.json, why));
        bind(sb, HttpMethod.DELETE, "/api/v1/fences/{unit}", Role.OPERATOR, "fence.lift", (ctx, who, body, why) ->
                outcome(service.liftFence(who.name(), ctx.pathParam("unit"), why)));
        bind(sb, HttpMethod.POST, "/api/v1/switchovers", Role.OPERATOR, "switchover.start", (ctx, who, body, why) ->
                startSwitchover(who, body.json));
        bind(sb, HttpMethod.GET, "/api/v1/switchovers/{id}", Role.VIEWER, "switchover.read", (ctx, who, body, why) ->
                service.switchover(ctx.pathParam("id"))
                       .map(s -> Outcome.ok(StateJson.switchover(s), service.state().revision()))
                       .orElseGet(() -> Outcome.problem(Refusal.Kind.NOT_FOUND, "switchover '" + ctx.pathParam("id")
                                                        + "': not the current or last one")));
        bind(sb, HttpMethod.POST, "/api/v1/switchovers/{id}/abort", Role.OPERATOR, "switchover.abort",
             (ctx, who, body, why) -> outcome(service.abortSwitchover(who.name(), ctx.pathParam("id"),
                                                                        body.path("reason").asText(why))));
        bind(sb, HttpMethod.GET, "/api/v1/audit", Role.VIEWER, "audit.read", (ctx, who, body, why) -> {
            ArrayNode entries = StateJson.MAPPER.createArrayNode();
            service.audit(param(ctx, "after", 0, 0, Long.MAX_VALUE, "a sequence number >= 0"),
                          (int) param(ctx, "limit", 200, 1, 10_000, "1..10000"))
                   .forEach(e -> entries.add(e.toJson()));
            ObjectNode out = StateJson.MAPPER.createObjectNode();
            out.set("entries", entries);
            return Outcome.ok(out, service.state().revision());
        });
        // The console holds the switchover button: no framing (clickjacking), no script or style from elsewhere,
        // no content sniffing. Sent with every response, as the API's bodies are no more to be framed or sniffed.
        sb.decorator((delegate, ctx, req) -> {
            ctx.setAdditionalResponseHeader("content-security-policy", CONTENT_SECURITY_POLICY);
            ctx.setAdditionalResponseHeader("x-frame-options", "DENY");
            ctx.setAdditionalResponseHeader("x-content-type-options", "nosniff");
            ctx.setAdditionalResponseHeader("referrer-policy", "no-referrer");
            return delegate.serve(ctx, req);
        });
        sb.route().get("/api/v1/watch").build(this::watch);
        sb.route().get("/metrics").build((ctx, req) -> {
            Authorization auth = authorize(ctx, Role.VIEWER, false);
            if (auth.refusal != null) {
                return respond(Outcome.problem(auth.refusal));
            }
            return HttpResponse.of(HttpStatus.OK, MediaType.parse("text/plain; version=0.0.4; charset=utf-8"),
                                   service.scrapeMetrics());
        });
        sb.route().get("/api/v1/openapi.json").build(
                HttpFile.of(ControlApi.class.getClassLoader(), "io/unitas/control/openapi.json").asService());
        sb.serviceUnder("/", FileService.builder(ControlApi.class.getClassLoader(), "io/unitas/control/console")
                                        .build());
    }

    /** The fallback pool: its binary form (base64), and, to read, its addresses and checksum (empty: none given). */
    private Outcome fallbackPool() {
        ObjectNode o = StateJson.MAPPER.createObjectNode();
        o.put("pool", java.util.Base64.getEncoder().encodeToString(pool));
        ArrayNode addresses = o.putArray("addresses");
        for (byte[] ip : PoolFormat.decode(pool)) {
            addresses.add((ip[0] & 0xFF) + "." + (ip[1] & 0xFF) + "." + (ip[2] & 0xFF) + "." + (ip[3] & 0xFF));
        }
        o.put("crc32", String.format("%02x%02x%02x%02x", pool[pool.length - 4], pool[pool.length - 3],
                                     pool[pool.length - 2], pool[pool.length - 1]));
        return Outcome.ok(o, 0);
    }

    /**
     * A peer's report that {@code region} is unreachable from it: {@code {"observer": "eu"}}, the observer being the
     * token's region when the token is bound to one (and then no other); 200 with whether it counted.
     */
    private Outcome unreachable(TokenTable.Principal who, String region, JsonNode doc) {
        JsonNode field = doc.path("observer");
        String observer;
        if (field.isMissingNode() || field.isNull()) {
            if (who.region().isEmpty()) {
                return Outcome.problem(service.refuse(who.name(), "health.unreachable", region, "", badField(
                        "observer", "missing (expected: the id of the region that cannot reach " + region + ")")));
            }
            observer = who.region();
        } else if (!field.isTextual()) {
            return Outcome.problem(service.refuse(who.name(), "health.unreachable", region, "", badField(
                    "observer", field + " (expected: a region id, as a string)")));
        } else {
            observer = field.asText();
        }
        if (!who.region().isEmpty() && !who.region().equals(observer)) {
            return Outcome.problem(service.refuse(who.name(), "health.unreachable", region, "", Refusal.of(
                    Refusal.Kind.FORBIDDEN, "token '" + who.name() + "' speaks for region " + who.region()
                    + " only (expected: observer '" + who.region() + "')")));
        }
        ControlService.Evidence e = service.reportUnreachable(who.name(), region, observer);
        if (e.refusal() != null) {
            return Outcome.problem(e.refusal());
        }
        ObjectNode out = StateJson.MAPPER.createObjectNode();
        out.put("region", region).put("observer", observer).put("counted", e.counted()).put("detail", e.detail());
        return Outcome.ok(out, 0);
    }

    private static Refusal badField(String field, String message) {
        return new Refusal(Refusal.Kind.BAD_REQUEST, field + ": " + message, List.of(new Problem(field, message)),
                           List.of(), null);
    }

    /** A replacement names the revision it replaces in {@code If-Match}: required, and a revision number. */
    private Outcome replacement(ServiceRequestContext ctx, TokenTable.Principal who, String action, String target,
                                String reason, java.util.function.LongFunction<ChangeResult> change) {
        String ifMatch = ctx.request().headers().get(HttpHeaderNames.IF_MATCH);
        if (ifMatch == null) {
            return Outcome.problem(Refusal.of(Refusal.Kind.REVISION_REQUIRED, "If-Match: missing (expected: the "
                    + "revision this change replaces, from GET /api/v1/state)"));
        }
        long revision;
        try {
            revision = Long.parseLong(ifMatch.replace("\"", "").replace("W/", "").strip());
        } catch (NumberFormatException e) {
            return Outcome.problem(service.refuse(who.name(), action, target, reason, Refusal.of(
                    Refusal.Kind.BAD_REQUEST, "If-Match: '" + ifMatch + "' (expected: a revision number)")));
        }
        return outcome(change.apply(revision));
    }

    /**
     * Fences read from their JSON body ({@link FenceRequest}); without {@code retry_after} the default, and one
     * shorter than a second refused as an invalid fence.
     */
    private Outcome addFences(TokenTable.Principal who, JsonNode doc, String why) {
        WireJson.Parsed<FenceRequest> read = WireJson.fenceRequest(doc, why);
        if (!read.ok()) {
            return Outcome.problem(service.refuse(who.name(), "fence.add", "fence", why, badFields(read.problems())));
        }
        FenceRequest request = read.value();
        Duration retryAfter = request.retryAfter() == null ? FencePolicy.DEFAULT_RETRY_AFTER : request.retryAfter();
        if (retryAfter.compareTo(FencePolicy.MIN_RETRY_AFTER) < 0) {
            return Outcome.problem(service.refuse(who.name(), "fence.add", "fence", request.reason(), Refusal.invalid(
                    "fence", List.of(new Problem("retry_after", "'" + DurationFormat.format(retryAfter)
                            + "' (expected: a duration of at least " + DurationFormat.format(FencePolicy.MIN_RETRY_AFTER)
                            + ", such as 10s or 1m)")))));
        }
        return outcome(service.addFences(who.name(), request.units(), request.reason(), retryAfter));
    }

    /** Fields of a request body that are not what the document says they are: 400, each named. */
    private static Refusal badFields(List<Problem> problems) {
        String detail = problems.size() == 1 ? problems.get(0).toString()
                                             : problems.size() + " fields are not what they should be";
        return new Refusal(Refusal.Kind.BAD_REQUEST, detail, problems, List.of(), null);
    }

    /** A switchover request read from its JSON body ({@link SwitchoverRequest}); a malformed field is a 400. */
    private Outcome startSwitchover(TokenTable.Principal who, JsonNode doc) {
        WireJson.Parsed<SwitchoverRequest> read = WireJson.switchoverRequest(doc);
        if (!read.ok()) {
            return Outcome.problem(service.refuse(who.name(), "switchover.start", "switchover",
                    doc.path("reason").asText(""), badFields(read.problems())));
        }
        SwitchoverRequest r = read.value();
        return outcome(service.startSwitchover(who.name(), new ControlService.SwitchoverRequest(r.units(), r.drain(),
                r.target(), r.maxLag().toMillis(), r.deadline(), r.timeout(), r.dryRun(), r.force(), r.reason(),
                r.promote())));
    }

    /**
     * A change's result on the wire: 200 with the revision (202 and the plan and switchover for a started
     * switchover; the switchover for an aborted one), 200 with the plan for a dry run, or the refusal's problem.
     */
    private static Outcome outcome(ChangeResult result) {
        if (result instanceof ChangeResult.Applied applied) {
            ObjectNode body = StateJson.MAPPER.createObjectNode();
            if (applied.plan() != null) {
                body.set("plan", StateJson.plan(applied.plan()));
                body.set("switchover", StateJson.switchover(applied.switchover()));
                body.put("revision", applied.revision());
                return Outcome.accepted(body, applied.revision());
            }
            if (applied.switchover() != null) {
                body = StateJson.switchover(applied.switchover());
            }
            body.put("revision", applied.revision());
            return Outcome.ok(body, applied.revision());
        } else if (result instanceof ChangeResult.Planned planned) {
            ObjectNode body = StateJson.MAPPER.createObjectNode();
            body.set("plan", StateJson.plan(planned.plan()));
            return Outcome.ok(body, planned.revision());
        } else if (result instanceof ChangeResult.PreconditionFailed stale) {
            return Outcome.problem(stale.refusal());
        } else if (result instanceof ChangeResult.Refused refused) {
            return Outcome.problem(refused.refusal());
        }
        return null; // unchanged: 204
    }

    private void bind(ServerBuilder sb, HttpMethod method, String path, Role role, String action, Operation op) {
        long limit = path.equals("/api/v1/topology") || path.equals("/api/v1/rules") ? DOCUMENT_BYTES : SMALL_BYTES;
        HttpService http = (ctx, req) -> {
            // Who is asking is known from the headers; nothing of the body is read until they may ask.
            String reason = req.headers().get(REASON_HEADER, "");
            Authorization auth = authorize(ctx, role, action);
            if (auth.refusal != null) {
                return HttpResponse.of(CompletableFuture.supplyAsync(() -> respond(Outcome.problem(
                        service.refuse(auth.actor, action, ctx.path(), reason, auth.refusal))),
                        ctx.blockingTaskExecutor()));
            }
            ctx.setMaxRequestLength(limit);
            return HttpResponse.of(req.aggregate().handleAsync((agg, error) -> {
                try {
                    if (error != null) {
                        if (Exceptions.peel(error) instanceof ContentTooLargeException) {
                            Outcome tooLarge = tooLarge(limit, method + " " + path);
                            service.refuse(auth.actor, action, ctx.path(), reason, Refusal.of(Refusal.Kind.TOO_LARGE,
                                    tooLarge.body().path("detail").asText()));
                            return respond(tooLarge);
                        }
                        return HttpResponse.ofFailure(error);
                    }
                    return respond(handle(ctx, agg, auth, action, reason, op));
                } catch (BadRequest e) {
                    return respond(Outcome.problem(service.refuse(auth.actor, action, ctx.path(), reason,
                                                                  e.refusal)));
                } catch (RuntimeException e) {
                    log.warn("{} {} failed", method, path, e);
                    return respond(Outcome.problem(Refusal.Kind.UNAVAILABLE, String.valueOf(e.getMessage())));
                }
            }, ctx.blockingTaskExecutor()));
        };
        sb.route().methods(method).path(path).build(http);
    }

    /**
     * The statuses the server answers before (or instead of) an operation, such as a body over the route's limit
     * or headers over theirs, as problems like every other refusal.
     */
    ServerErrorHandler errors() {
        return new ServerErrorHandler() {
            @Override
            public HttpResponse onServiceException(ServiceRequestContext ctx, Throwable cause) {
                if (Exceptions.peel(cause) instanceof ContentTooLargeException) {
                    return respond(tooLarge(ctx.maxRequestLength(), ctx.method() + " " + ctx.path()));
                }
                return null;
            }

            @Override
            public AggregatedHttpResponse renderStatus(ServiceRequestContext ctx, ServiceConfig config,
                                                       RequestHeaders headers, HttpStatus status,
                                                       String description, Throwable cause) {
                Outcome outcome;
                if (status.code() == 413) {
                    long limit = ctx != null ? ctx.maxRequestLength() : config != null ? config.maxRequestLength()
                                                                                        : DOCUMENT_BYTES;
                    outcome = tooLarge(limit, headers == null ? "this route" : headers.method() + " " + headers.path());
                } else if (status.isClientError() || status.isServerError()) {
                    outcome = Outcome.problem(status.code(), status.reasonPhrase(),
                                              description != null ? description : status.reasonPhrase());
                } else {
                    return null;
                }
                return AggregatedHttpResponse.of(ResponseHeaders.builder(status).contentType(PROBLEM_JSON).build(),
                                                 HttpData.ofUtf8(StateJson.write(outcome.body())));
            }
        };
    }

    private static Outcome tooLarge(long limit, String route) {
        return Outcome.problem(Refusal.Kind.TOO_LARGE, "body: larger than " + limit + " bytes (expected: at most "
                                                        + limit + " for " + route + ")");
    }

    private Outcome handle(ServiceRequestContext ctx, AggregatedHttpRequest req, Authorization auth, String action,
                           String reason, Operation op) {
        String target = ctx.path();
        JsonNode body = null;
        String text = req.content(StandardCharsets.UTF_8);
        MediaType type = req.contentType();
        boolean yaml = type != null && type.subtype().contains("yaml");
        if (!text.isBlank() && !yaml) {
            try {
                body = StateJson.parse(text);
            } catch (IllegalArgumentException e) {
                return Outcome.problem(service.refuse(auth.actor, action, target, reason,
                                                      Refusal.of(Refusal.Kind.BAD_REQUEST, "body: " + e.getMessage())));
            }
            String huge = nonFinite(body, "");
            if (huge != null) {
                return Outcome.problem(service.refuse(auth.actor, action, target, reason, Refusal.of(
                        Refusal.Kind.BAD_REQUEST, "body: " + huge + ": out of range (expected: a finite number)")));
            }
        } else if (text.isBlank() && (req.method() == HttpMethod.PUT || (req.method() == HttpMethod.POST
                                      && !action.endsWith("abort") && !action.endsWith("accept")))) {
            return Outcome.problem(service.refuse(auth.actor, action, target, reason, Refusal.of(
                    Refusal.Kind.BAD_REQUEST, "body: empty (expected: a JSON document)")));
        }
        return op.apply(ctx, auth.principal, new Body(text, yaml ? ".yaml" : ".json",
                body == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : body), reason);
    }

    /** Who is calling, or why they may not. */
    private record Authorization(TokenTable.Principal principal, String actor, Refusal refusal) {}

    /**
     * {@link #authorize(ServiceRequestContext, Role, boolean)} from the {@code Authorization} header only, and a
     * token bound to a region reports that region only.
     */
    private Authorization authorize(ServiceRequestContext ctx, Role role, String action) {
        Authorization auth = authorize(ctx, role, false);
        if (auth.refusal == null && action.equals("health.report")
            && !auth.principal.mayReport(ctx.pathParam("region"))) {
            return new Authorization(auth.principal, auth.actor, Refusal.of(Refusal.Kind.FORBIDDEN, "token '"
                    + auth.actor + "' reports region " + auth.principal.region() + " only (expected: PUT "
                    + "/api/v1/health/" + auth.principal.region() + ")"));
        }
        return auth;
    }

    /**
     * The caller's token and role. The token comes from {@code Authorization: Bearer}; only where
     * {@code queryToken} (the watch, as a browser's EventSource cannot set headers, RFC 6750 2.3) also from
     * {@code ?access_token=}, which proxies log with the URL.
     */
    private Authorization authorize(ServiceRequestContext ctx, Role role, boolean queryToken) {
        String header = ctx.request().headers().get(HttpHeaderNames.AUTHORIZATION, "");
        String secret = header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).strip()
                        : queryToken ? ctx.queryParam("access_token") : null;
        if (secret == null || secret.isEmpty()) {
            return new Authorization(null, "anonymous", Refusal.of(Refusal.Kind.UNAUTHENTICATED,
                    "no bearer token (expected: Authorization: Bearer <token>)"));
        }
        InetAddress client = ctx.remoteAddress().getAddress();
        if (guesses.blocked(client)) {
            return new Authorization(null, "anonymous", Refusal.of(Refusal.Kind.TOO_MANY_GUESSES,
                    "too many wrong tokens from " + client.getHostAddress() + "; its tokens are not looked at for a"
                    + " while (expected: a valid token, after Retry-After)"));
        }
        TokenTable.Principal principal = tokens.current().authenticate(secret).orElse(null);
        if (principal == null) {
            guesses.failed(client);
            return new Authorization(null, "anonymous", Refusal.of(Refusal.Kind.UNAUTHENTICATED,
                    "unknown bearer token"));
        }
        if (!principal.role().allows(role)) {
            return new Authorization(principal, principal.name(), Refusal.of(Refusal.Kind.FORBIDDEN,
                    "role " + principal.role().jsonName() + " (expected: " + role.jsonName() + " or above)"));
        }
        return new Authorization(principal, principal.name(), null);
    }

    static HttpResponse respond(Outcome outcome) {
        if (outcome == null) {
            return HttpResponse.of(HttpStatus.NO_CONTENT);
        }
        ResponseHeadersBuilder headers = ResponseHeaders.builder(outcome.status())
                .contentType(outcome.failed() ? PROBLEM_JSON : MediaType.JSON_UTF_8);
        if (outcome.revision() > 0) {
            headers.set(HttpHeaderNames.ETAG, "\"" + outcome.revision() + "\"");
        }
        if (outcome.kind() == Refusal.Kind.UNAUTHENTICATED) {
            headers.set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"unitas\"");
        }
        if (outcome.kind() == Refusal.Kind.TOO_MANY_GUESSES) {
            headers.set(HttpHeaderNames.RETRY_AFTER, "1");
        }
        return HttpResponse.of(headers.build(), HttpData.ofUtf8(StateJson.write(outcome.body())));
    }

    private HttpResponse watch(ServiceRequestContext ctx, com.linecorp.armeria.common.HttpRequest req) {
        Authorization auth = authorize(ctx, Role.VIEWER, true);
        if (auth.refusal != null) {
            return HttpResponse.of(CompletableFuture.supplyAsync(() -> respond(Outcome.problem(
                    service.refuse(auth.actor, "watch", ctx.path(), "", auth.refusal))), ctx.blockingTaskExecutor()));
        }
        return watches.serve(ctx, req, auth.principal.name(), WatchApi.secret(ctx));
    }

    /** A request that is malformed before any operation reads it: a query parameter, a header. */
    private static final class BadRequest extends RuntimeException {
        final Refusal refusal;

        BadRequest(String detail) {
            super(detail, null, false, false);
            this.refusal = Refusal.of(Refusal.Kind.BAD_REQUEST, detail);
        }
    }

    /** The query parameter {@code name} as a number in {@code min..max}, or {@code otherwise} when absent. */
    private static long param(ServiceRequestContext ctx, String name, long otherwise, long min, long max,
                              String expected) {
        String value = ctx.queryParam(name);
        if (value == null) {
            return otherwise;
        }
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new BadRequest(name + ": '" + value + "' (expected: " + expected + ")");
        }
        if (n < min || n > max) {
            throw new BadRequest(name + ": " + n + " (expected: " + expected + ")");
        }
        return n;
    }

    /** The path of the first number in {@code node} that does not fit a double ({@code 1e400}), or null. */
    private static String nonFinite(JsonNode node, String path) {
        if (node.isNumber()) {
            return Double.isFinite(node.doubleValue()) ? null : path;
        }
        if (node.isContainerNode()) {
            java.util.Iterator<java.util.Map.Entry<String, JsonNode>> fields = node.properties().iterator();
            if (node.isArray()) {
                for (int i = 0; i < node.size(); i++) {
                    String found = nonFinite(node.get(i), path + "[" + i + "]");
                    if (found != null) {
                        return found;
                    }
                }
            }
            while (fields.hasNext()) {
                java.util.Map.Entry<String, JsonNode> f = fields.next();
                String found = nonFinite(f.getValue(), path.isEmpty() ? f.getKey() : path + "." + f.getKey());
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }
}
