package io.unitas.spring;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingHeaders;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.Region;
import io.unitas.core.Topology;

/**
 * The write guard's {@code forward} mode, for the Servlet and the WebFlux filter alike: a write refused here is sent
 * on to the instance (or gateway) of the region that takes its unit's writes now, and that region's answer is relayed
 * as it came (status, headers, body). The forwarded request carries the routing context's stamp and
 * {@value #FORWARDED_BY}; a request that already carries it is never forwarded again, so two regions whose routing
 * states disagree refuse the write rather than pass it back and forth.
 */
final class WriteForwarder {

    /** The header a forwarded write carries: the region that forwarded it. */
    static final String FORWARDED_BY = "x-unitas-forwarded-by";
    /** The header on a relayed answer: the region that answered it. */
    static final String FORWARDED_TO = "x-unitas-forwarded-to";
    static final String TARGETS = "unitas.write-guard.forward.targets";
    static final String TIMEOUT = "unitas.write-guard.forward.timeout";

    // Hop-by-hop (RFC 9110 7.6.1) or set by the client itself: not copied in either direction.
    private static final Set<String> NOT_COPIED = Set.of("connection", "keep-alive", "proxy-connection", "te",
                                                         "trailer", "transfer-encoding", "upgrade", "host",
                                                         "content-length", "expect", "http2-settings");

    private final Region here;
    private final Map<Region, URI> targets;
    private final Duration timeout;
    private final RoutingHeaders headers;
    private final HttpClient client;

    private WriteForwarder(Region here, Map<Region, URI> targets, Duration timeout, RoutingHeaders headers) {
        this.here = here;
        this.targets = Map.copyOf(targets);
        this.timeout = timeout;
        this.headers = headers;
        // HTTP/1.1: a plain http:// target is not asked to upgrade to h2c with a body in flight
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout)
                                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * The forwarder {@code unitas.write-guard.forward.*} describes for the service in {@code region}: a target for
     * every other region of {@code topology}.
     *
     * @throws UnitasConfigurationException naming each missing or wrong property, one line each
     */
    static WriteForwarder of(String region, WriteGuardProperties.Forward settings, Topology topology,
                             RoutingHeaders headers) {
        List<String> problems = new ArrayList<>();
        Map<Region, URI> targets = targets(TARGETS, settings.getTargets(), topology, region, WriteForwarder::url,
                                           r -> "the base URL of region " + r.id() + "'s instance of this service"
                                                + " or of its gateway, e.g. https://wallet-" + r.id()
                                                + ".internal:8080",
                                           r -> "an http:// or https:// URL with a host, e.g. https://wallet-"
                                                + r.id() + ".internal:8080",
                                           problems);
        Duration timeout = timeout(settings, problems);
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        return new WriteForwarder(Region.of(region), targets, timeout, headers);
    }

    /**
     * The targets {@code given} under {@code property}, one for every region of {@code topology} but {@code here},
     * each read with {@code parse} ({@code null}: wrong); adds one line to {@code problems} per missing, wrong or
     * unknown one, saying what was expected of that region's ({@code missing} when it is not there, {@code wrong}
     * when it does not parse). The HTTP and the gRPC targets are checked alike.
     */
    static <T> Map<Region, T> targets(String property, Map<String, String> given, Topology topology, String here,
                                      Function<String, T> parse, Function<Region, String> missing,
                                      Function<Region, String> wrong, List<String> problems) {
        Map<Region, T> targets = new HashMap<>();
        Map<String, String> named = given == null ? Map.of() : given;
        for (Region r : topology.regions()) {
            if (r.id().equals(here)) {
                continue;
            }
            String text = named.get(r.id());
            if (text == null || text.isBlank()) {
                problems.add(property + "." + r.id() + ": missing (expected: " + missing.apply(r)
                             + ", since unitas.write-guard.mode is forward)");
                continue;
            }
            T target = parse.apply(text.trim());
            if (target == null) {
                problems.add(property + "." + r.id() + ": '" + text + "' (expected: " + wrong.apply(r) + ")");
            } else {
                targets.put(r, target);
            }
        }
        for (String name : named.keySet()) {
            if (topology.regions().stream().noneMatch(r -> r.id().equals(name))) {
                problems.add(property + "." + name + ": not a region of the topology (expected: one of "
                             + topology.regions() + ")");
            }
        }
        return targets;
    }

    /** {@value #TIMEOUT}, or {@code null} with a line in {@code problems} when it is not a duration above zero. */
    static Duration timeout(WriteGuardProperties.Forward settings, List<String> problems) {
        Duration timeout = settings.getTimeout();
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            problems.add(TIMEOUT + ": '" + timeout + "' (expected: a duration > 0, e.g. 5s)");
        }
        return timeout;
    }

    private static URI url(String text) {
        try {
            URI uri = URI.create(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            return (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null ? uri : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The base URL writes that {@code region} takes are forwarded to; {@code null} when there is none. */
    URI target(Region region) {
        return region == null ? null : targets.get(region);
    }

    /** The refusal of a write that was forwarded here already: it is not forwarded twice. */
    static ProblemDetail refusedAgain(ProblemDetail refusal, String forwardedBy) {
        return new ProblemDetail(refusal.type(), refusal.title(), refusal.status(),
                                 refusal.detail() + " (it was forwarded here by " + forwardedBy
                                 + ", and a write is forwarded once: the two regions' routing states disagree)",
                                 refusal.retryAfter(), refusal.problems(), refusal.extensions())
                .with("forwarded-by", forwardedBy);
    }

    /**
     * Sends a write on to {@code target} (the region that takes its unit's writes): {@code method} of
     * {@code pathAndQuery} with the request's {@code requestHeaders} (the routing headers replaced by
     * {@code context}'s stamp) and {@code body}. Completes with that region's answer, or with a 504
     * {@code upstream-timeout} / 502 {@code upstream-failed} problem naming the target; never exceptionally.
     */
    CompletableFuture<Answer> forward(Region target, String unit, String method, String pathAndQuery,
                                      List<Map.Entry<String, String>> requestHeaders, byte[] body,
                                      RoutingContext context) {
        URI base = targets.get(target);
        String path = pathAndQuery.startsWith("/") ? pathAndQuery : "/" + pathAndQuery;
        String baseText = base.toString().endsWith("/") ? base.toString().substring(0, base.toString().length() - 1)
                                                        : base.toString();
        URI uri = URI.create(baseText + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout)
                .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                                                 : HttpRequest.BodyPublishers.ofByteArray(body));
        Set<String> routing = Set.copyOf(headers.names());
        for (Map.Entry<String, String> h : requestHeaders) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (NOT_COPIED.contains(name) || routing.contains(name) || name.equals(FORWARDED_BY)) {
                continue;
            }
            try {
                request.header(h.getKey(), h.getValue());
            } catch (IllegalArgumentException restricted) {
                // a header the JDK client sets itself (e.g. Date on some versions): it sends its own
            }
        }
        headers.write(context, request::header);
        request.header(FORWARDED_BY, here.id());
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray())
                     .thenApply(response -> relayed(target, response))
                     .exceptionally(failure -> failed(target, unit, uri, failure));
    }

    private static Answer relayed(Region target, HttpResponse<byte[]> response) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        response.headers().map().forEach((name, values) -> {
            if (!name.startsWith(":") && !NOT_COPIED.contains(name.toLowerCase(Locale.ROOT))) {
                out.put(name, values);
            }
        });
        out.put(FORWARDED_TO, List.of(target.id()));
        return new Answer(response.statusCode(), out, response.body());
    }

    private Answer failed(Region target, String unit, URI uri, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                                                                                               : failure;
        ProblemDetail problem;
        String write = "a write of unit " + unit + " forwarded from " + here + " to " + target + " (" + uri + ")";
        if (cause instanceof HttpTimeoutException || cause instanceof TimeoutException) {
            problem = ProblemDetail.of(504, "upstream-timeout", write + " had no answer within " + timeout.toMillis()
                                                                + " ms (" + TIMEOUT + ")");
        } else {
            String why = cause instanceof ConnectException ? "cannot connect" : String.valueOf(cause.getMessage());
            problem = ProblemDetail.of(502, "upstream-failed", write + " failed: " + why + " (" + TARGETS + "."
                                                               + target.id() + ")");
        }
        problem = problem.with("unit", unit).with("target", target.id()).with("region", here.id());
        Map<String, List<String>> h = new LinkedHashMap<>();
        h.put("Content-Type", List.of(ProblemJson.MEDIA_TYPE));
        return new Answer(problem.status(), h, ProblemJson.encode(problem));
    }

    /** An answer to relay: status, headers (hop-by-hop ones left out) and body. */
    record Answer(int status, Map<String, List<String>> headers, byte[] body) {}
}
