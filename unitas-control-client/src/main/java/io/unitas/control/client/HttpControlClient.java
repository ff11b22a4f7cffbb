package io.unitas.control.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import io.unitas.config.HealthReportJson;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.control.client.internal.Operation;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.WireJson;
import io.unitas.control.client.wire.AuditPage;
import io.unitas.control.client.wire.Caller;
import io.unitas.control.client.wire.Committed;
import io.unitas.control.client.wire.DocumentText;
import io.unitas.control.client.wire.Evidence;
import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.wire.ReplicaView;
import io.unitas.control.client.wire.StalenessBudget;
import io.unitas.control.client.wire.StateView;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.control.client.wire.SwitchoverStarted;
import io.unitas.control.client.wire.SwitchoverView;
import io.unitas.core.ProblemDetail;
import io.unitas.core.health.HealthReport;

/**
 * {@link ControlClient} on the JDK's HTTP client. Every typed method goes through {@link #call}, which builds its
 * path from the {@link Operation} table and turns a refusal into a {@link ControlException}.
 */
final class HttpControlClient implements RawClient {

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

    /**
     * {@code op} with {@code values} in its path, {@code query} appended, {@code json} as its body; the answer when
     * it is 2xx, else a {@link ControlException} with the server's problem.
     */
    private ControlResponse call(Operation op, String[] values, String query, String body, String mediaType,
                                 Map<String, String> headers) {
        String path = op.path(values) + query;
        Map<String, String> all = new LinkedHashMap<>(headers);
        if (body != null) {
            all.put("Content-Type", mediaType);
        }
        ControlResponse res = send(op.method(), path, body, all);
        if (!res.ok()) {
            ProblemDetail problem = res.problem().orElseGet(() -> ProblemDetail.of(res.status(), "unexpected-answer",
                    ControlResponse.problemDetail(res.body())));
            throw new ControlException(op.method() + " " + path, problem);
        }
        return res;
    }

    private ControlResponse call(Operation op, String... values) {
        return call(op, values, "", null, null, Map.of());
    }

    private ControlResponse json(Operation op, String body, Map<String, String> headers, String... values) {
        return call(op, values, "", body, "application/json", headers);
    }

    private static Map<String, String> reason(String reason) {
        return reason == null || reason.isEmpty() ? Map.of() : Map.of("X-Unitas-Reason", reason);
    }

    private Committed replace(Operation op, DocumentText document, long ifMatch, String reason) {
        Map<String, String> headers = new LinkedHashMap<>(reason(reason));
        headers.put("If-Match", "\"" + ifMatch + "\"");
        ControlResponse res = call(op, new String[0], "", document.text(), document.mediaType(), headers);
        return WireJson.committed(res.body());
    }

    @Override
    public StateView state() {
        ControlResponse res = call(Operation.GET_STATE);
        return WireJson.state(res.body(), res.revision());
    }

    @Override
    public Caller whoami() {
        return WireJson.caller(call(Operation.WHOAMI).body());
    }

    @Override
    public ReplicaView replica() {
        return WireJson.replica(call(Operation.GET_REPLICA).body());
    }

    @Override
    public List<StalenessBudget> budgets() {
        return WireJson.budgets(call(Operation.GET_BUDGETS).body());
    }

    @Override
    public byte[] fallbackPool() {
        return WireJson.fallbackPool(call(Operation.GET_FALLBACK_POOL).body());
    }

    @Override
    public Committed replaceTopology(DocumentText document, long ifMatch, String reason) {
        return replace(Operation.REPLACE_TOPOLOGY, document, ifMatch, reason);
    }

    @Override
    public Committed replaceRules(DocumentText document, long ifMatch, String reason) {
        return replace(Operation.REPLACE_RULES, document, ifMatch, reason);
    }

    @Override
    public Committed replaceFailover(DocumentText document, long ifMatch, String reason) {
        return replace(Operation.REPLACE_FAILOVER, document, ifMatch, reason);
    }

    @Override
    public Committed reportHealth(HealthReport report) {
        return WireJson.committed(json(Operation.REPORT_HEALTH, HealthReportJson.write(report), Map.of(),
                                       report.region().id()).body());
    }

    @Override
    public Committed resetHealth(String region, String reason) {
        return WireJson.committed(call(Operation.RESET_HEALTH, new String[] {region}, "", null, null,
                                       reason(reason)).body());
    }

    @Override
    public Evidence reportUnreachable(String region, String observer) {
        return WireJson.evidence(json(Operation.REPORT_UNREACHABLE, WireJson.observer(observer), Map.of(),
                                      region).body());
    }

    @Override
    public Committed fence(FenceRequest request) {
        return WireJson.committed(json(Operation.ADD_FENCES, WireJson.write(request), Map.of()).body());
    }

    @Override
    public Committed liftFence(String unit, String reason) {
        return WireJson.committed(call(Operation.LIFT_FENCE, new String[] {unit}, "", null, null,
                                       reason(reason)).body());
    }

    @Override
    public SwitchoverStarted startSwitchover(SwitchoverRequest request) {
        ControlResponse res = json(Operation.START_SWITCHOVER, WireJson.write(request), Map.of());
        return WireJson.started(res.body(), res.revision());
    }

    @Override
    public SwitchoverView switchover(String id) {
        return WireJson.switchover(call(Operation.GET_SWITCHOVER, id).body());
    }

    @Override
    public SwitchoverView abortSwitchover(String id, String reason) {
        return WireJson.switchover(json(Operation.ABORT_SWITCHOVER, WireJson.reason(reason), Map.of(), id).body());
    }

    @Override
    public SwitchoverStarted acceptProposal(String id, String reason) {
        ControlResponse res = json(Operation.ACCEPT_PROPOSAL, WireJson.reason(reason), Map.of(), id);
        return WireJson.started(res.body(), res.revision());
    }

    @Override
    public AuditPage audit(long after, int limit) {
        return WireJson.audit(call(Operation.GET_AUDIT, new String[0], "?after=" + after + "&limit=" + limit, null,
                                   null, Map.of()).body());
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
