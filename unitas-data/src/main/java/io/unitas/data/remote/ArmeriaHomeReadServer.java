package io.unitas.data.remote;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.ResponseHeadersBuilder;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.ServiceRequestContext;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;
import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.remote.IdempotencyWire.Operation;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import io.unitas.server.bounds.ConnectionBounds;

/** {@link HomeReadServer} on Armeria: token, then parameters, then ownership, then the reader on a blocking thread. */
final class ArmeriaHomeReadServer implements HomeReadServer {

    private static final Logger log = LoggerFactory.getLogger(ArmeriaHomeReadServer.class);

    /** Connections at once; more are closed as they are accepted. */
    static final int MAX_CONNECTIONS = 4_096;
    /**
     * A connection without a request for this long is closed (Armeria's default, stated here), and so is one whose
     * request head is unfinished: bytes of a head do not extend it, so a caller trickling one is closed too.
     */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(15);
    private static final MediaType PROBLEM_JSON = MediaType.parse(ProblemJson.MEDIA_TYPE);
    private static final String BEARER = "Bearer ";

    private final Region region;
    private final Predicate<String> owns;
    private final Predicate<String> authenticator;
    private final Map<String, EntityReader> readers;
    private final byte[] declarations;
    private final IdempotencyStore idempotency;
    private final io.unitas.data.merge.MergeDigests mergeCopy;
    private final java.util.Set<String> mergeTypes;
    private final MeterRegistry meters;
    private final java.util.function.LongSupplier ticker;
    private final long requestTimeoutMillis;
    private final boolean tls;
    private Server server;

    private ArmeriaHomeReadServer(HomeReadServer.Builder b) {
        this.region = b.region;
        this.owns = b.owns;
        this.authenticator = b.authenticator;
        this.readers = Map.copyOf(b.readers);
        this.declarations = HomeReadWire.encodeDeclarations(b.region.id(), b.codecs);
        this.idempotency = b.idempotency;
        this.mergeCopy = b.mergeCopy;
        this.mergeTypes = b.mergeTypes;
        this.meters = b.meters;
        this.ticker = b.ticker;
        this.requestTimeoutMillis = b.requestTimeout.toMillis();
        this.tls = b.tlsCert != null;
    }

    static HomeReadServer start(HomeReadServer.Builder b) {
        InetSocketAddress address = new InetSocketAddress(b.host, b.port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("listen " + b.host + ": cannot resolve (expected: an address or a host "
                                               + "name of this machine)");
        }
        if (b.tlsCert == null && !b.allowPlaintext && !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("listen " + b.host + ": not a loopback address, without TLS "
                    + "(expected: tls(cert, key), or allowPlaintext() behind a proxy that terminates TLS)");
        }
        if (b.clientCa != null && b.tlsCert == null) {
            throw new IllegalArgumentException("clientCa: " + b.clientCa + " without TLS (expected: tls(cert, key) too:"
                                               + " client certificates are checked in the TLS handshake)");
        }
        ArmeriaHomeReadServer s = new ArmeriaHomeReadServer(b);
        ServerBuilder sb = com.linecorp.armeria.server.Server.builder();
        if (b.tlsCert != null) {
            try {
                sb.https(address).tls(b.tlsCert.toFile(), b.tlsKey.toFile());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("tls: " + b.tlsCert + ", " + b.tlsKey + ": " + e.getMessage(), e);
            }
            if (b.clientCa != null) {
                java.io.File ca = b.clientCa.toFile();
                if (!ca.canRead()) {
                    throw new IllegalArgumentException("clientCa: " + b.clientCa + ": cannot be read (expected: a PEM"
                                                       + " file of the CA certificates that issue the callers')");
                }
                sb.tlsCustomizer(tls -> tls.clientAuth(io.netty.handler.ssl.ClientAuth.REQUIRE).trustManager(ca));
            }
        } else {
            sb.http(address);
        }
        // One client must not fill the heap: see ConnectionBounds for why HTTP/1.1 and HTTP/2 are bounded apart.
        ConnectionBounds bounds = new ConnectionBounds();
        sb.maxNumConnections(MAX_CONNECTIONS)
          .idleTimeout(IDLE_TIMEOUT)
          .http2MaxStreamsPerConnection(ConnectionBounds.MAX_STREAMS)
          .childChannelOption(io.netty.channel.ChannelOption.SO_RCVBUF, ConnectionBounds.RECEIVE_BUFFER)
          .childChannelPipelineCustomizer(bounds.pipeline())
          .decorator(bounds::serve);
        sb.requestTimeout(b.requestTimeout)
          .blockingTaskExecutor(b.blockingThreads)
          .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO)
          .route().get(HomeReadWire.PATH).build(s::serve)
          .route().get(HomeReadWire.DECLARATIONS_PATH).build((ctx, req) -> s.declarations(req))
          .route().get(MergeWire.DIGESTS).build((ctx, req) -> s.merge(false, ctx, req))
          .route().get(MergeWire.ROWS).build((ctx, req) -> s.merge(true, ctx, req))
          .route().get(IdempotencyWire.RECORD).build((ctx, req) -> s.idempotency(Operation.RECORD, ctx, req))
          .route().post(IdempotencyWire.CLAIM).build((ctx, req) -> s.idempotency(Operation.CLAIM, ctx, req))
          .route().post(IdempotencyWire.COMPLETE).build((ctx, req) -> s.idempotency(Operation.COMPLETE, ctx, req))
          .route().post(IdempotencyWire.RELEASE).build((ctx, req) -> s.idempotency(Operation.RELEASE, ctx, req));
        try {
            s.server = sb.build();
            s.server.start().join();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("home read server of " + b.region + " on " + b.host + ":" + b.port
                                               + ": cannot start: " + rootMessage(e), e);
        }
        log.info("home reads of region {} served on {} for entity types {}{}{}", s.region, s.uri(),
                 s.readers.keySet(), s.idempotency == null ? "" : ", and its idempotency records",
                 s.mergeCopy == null ? "" : ", and its copy of the merged types "
                                            + new java.util.TreeSet<>(s.mergeTypes));
        return s;
    }

    /** The 401 problem when the request carries no accepted bearer token, else null. */
    private ProblemDetail unauthenticated(HttpRequest req) {
        String authorization = req.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
            || !authenticator.test(authorization.substring(BEARER.length()).strip())) {
            return ProblemDetail.of(401, HomeReadWire.UNAUTHENTICATED,
                    authorization == null ? "no bearer token (expected: Authorization: Bearer <token>)"
                                          : "bearer token not accepted by region " + region);
        }
        return null;
    }

    /** What this region serves, entity type to codec identity, for a peer to compare with its own at start. */
    private HttpResponse declarations(HttpRequest req) {
        ProblemDetail refused = unauthenticated(req);
        return refused != null ? respond(refused) : HttpResponse.of(HttpStatus.OK, MediaType.JSON, declarations);
    }

    private HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
        long arrived = ticker.getAsLong();
        ProblemDetail refused = unauthenticated(req);
        if (refused != null) {
            return problem(null, "unauthenticated", refused);
        }
        ProblemDetail twice = givenTwice(ctx, "unit", "type", "key", "copy");
        if (twice != null) {
            return problem(null, "bad_request", twice);
        }
        String unit = ctx.queryParam("unit");
        String type = ctx.queryParam("type");
        String key = ctx.queryParam("key");
        if (unit == null || unit.isEmpty() || type == null || type.isEmpty() || key == null || key.isEmpty()) {
            return problem(type, "bad_request", ProblemDetail.of(400, HomeReadWire.BAD_REQUEST,
                    "query: unit '" + unit + "', type '" + type + "', key '" + key + "' (expected: all three)"));
        }
        EntityReader reader = readers.get(type);
        if (reader == null) {
            return problem(null, "unknown_type", ProblemDetail.of(404, HomeReadWire.UNKNOWN_ENTITY_TYPE,
                    "entity type '" + type + "': no reader in region " + region + " (expected: one of "
                    + readers.keySet() + ")"));
        }
        // A copy read vouches for nothing (a found entity exists; an absent one may be elsewhere): any unit.
        boolean copy = "true".equals(ctx.queryParam("copy"));
        if (!copy && !owns.test(unit)) {
            return notHome(type, unit);
        }
        long timeLeftMillis = timeLeftMillis(req.headers().get(HomeReadWire.TIMEOUT_HEADER));
        return HttpResponse.of(CompletableFuture.supplyAsync(
                () -> read(ctx, arrived, timeLeftMillis, reader, unit, type, key, copy), ctx.blockingTaskExecutor()));
    }

    /**
     * A 400 naming the first of {@code names} the query gives more than once, or {@code null}: a request that says
     * two things (two units, two keys) is refused, never served by the first value while its sender meant another.
     */
    private static ProblemDetail givenTwice(ServiceRequestContext ctx, String... names) {
        for (String name : names) {
            int given = ctx.queryParams().getAll(name).size();
            if (given > 1) {
                return ProblemDetail.of(400, HomeReadWire.BAD_REQUEST,
                                        "query: " + name + " given " + given + " times (expected: once)");
            }
        }
        return null;
    }

    /** The caller's time left as sent, or this server's request timeout when absent or not a count of ms. */
    private long timeLeftMillis(String header) {
        if (header == null || header.isEmpty() || header.length() > 9 || !header.chars().allMatch(Character::isDigit)) {
            return requestTimeoutMillis;
        }
        return Math.max(1, Long.parseLong(header));
    }

    private HttpResponse read(ServiceRequestContext ctx, long arrived, long timeLeftMillis, EntityReader reader,
                              String unit, String type, String key, boolean copy) {
        long waitedMillis = (ticker.getAsLong() - arrived) / 1_000_000;
        if (ctx.isCancelled() || waitedMillis >= timeLeftMillis) {
            // The caller has given up: spare the store a read nobody will receive (load shedding under a backlog).
            return problem(type, "expired", ProblemDetail.of(503, HomeReadWire.EXPIRED, type + " '" + key
                    + "' of unit " + unit + ": waited " + waitedMillis + " ms in region " + region
                    + " (expected: under the caller's " + timeLeftMillis + " ms)"));
        }
        Optional<StoredEntity> entity;
        try {
            entity = reader.read(unit, key);
        } catch (Exception e) {
            log.warn("home read of {} '{}' of unit {} in region {} failed", type, key, unit, region, e);
            return problem(type, "failed", ProblemDetail.of(500, HomeReadWire.READ_FAILED, type + " '" + key
                    + "' of unit " + unit + ": the reader of region " + region + " failed ("
                    + e.getClass().getSimpleName() + ")"));
        }
        if (!copy && !owns.test(unit)) {
            return notHome(type, unit); // the unit moved during the read: what was read may already be stale
        }
        if (entity.isEmpty()) {
            return problem(type, "not_found", ProblemDetail.of(404, HomeReadWire.ENTITY_NOT_FOUND, type + " '" + key
                    + "' of unit " + unit + ": not in region " + region + (copy ? "" : ", its home")));
        }
        count(type, "found");
        return HttpResponse.of(HttpStatus.OK, MediaType.JSON,
                               HomeReadWire.encode(region.id(), unit, type, key, entity.get()));
    }

    /**
     * A read of this region's copy of a merged entity type for reconciliation: token, parameters, the type served,
     * ownership, then the copy on a blocking thread, and ownership again (a unit that moved meanwhile is refused, as
     * for an entity read).
     */
    private HttpResponse merge(boolean rows, ServiceRequestContext ctx, HttpRequest req) {
        long arrived = ticker.getAsLong();
        String what = rows ? "merge_rows" : "merge_digests";
        ProblemDetail refused = unauthenticated(req);
        if (refused != null) {
            return problem(null, what + "_unauthenticated", refused);
        }
        String unit = ctx.queryParam("unit");
        String type = ctx.queryParam("type");
        int ranges = number(ctx.queryParam("ranges"));
        java.util.List<Integer> which = rows ? ranges(ctx.queryParam("which"), ranges) : java.util.List.of();
        String after = ctx.queryParam("after") == null ? "" : ctx.queryParam("after");
        if (unit == null || unit.isEmpty() || type == null || type.isEmpty() || ranges < 1
            || ranges > MergeWire.MAX_RANGES || which == null) {
            return problem(type, what + "_bad_request", ProblemDetail.of(400, HomeReadWire.BAD_REQUEST,
                    "query: unit '" + unit + "', type '" + type + "', ranges '" + ctx.queryParam("ranges") + "'"
                    + (rows ? ", which '" + ctx.queryParam("which") + "'" : "") + " (expected: unit, type, ranges 1 to "
                    + MergeWire.MAX_RANGES + (rows ? ", which: 1 to " + MergeWire.MAX_WHICH
                                                     + " comma-separated ranges below ranges" : "") + ")"));
        }
        if (mergeCopy == null || !mergeTypes.contains(type)) {
            return problem(null, what + "_unknown_type", ProblemDetail.of(404, HomeReadWire.UNKNOWN_ENTITY_TYPE,
                    "merged entity type '" + type + "': not served by region " + region + " (expected: one of "
                    + new java.util.TreeSet<>(mergeTypes) + ")"));
        }
        if (!owns.test(unit)) {
            return notHome(type, unit);
        }
        long timeLeftMillis = timeLeftMillis(req.headers().get(HomeReadWire.TIMEOUT_HEADER));
        return HttpResponse.of(CompletableFuture.supplyAsync(() -> {
            long waitedMillis = (ticker.getAsLong() - arrived) / 1_000_000;
            if (ctx.isCancelled() || waitedMillis >= timeLeftMillis) {
                return problem(type, what + "_expired", ProblemDetail.of(503, HomeReadWire.EXPIRED, what + " of "
                        + type + " of unit " + unit + ": waited " + waitedMillis + " ms in region " + region
                        + " (expected: under the caller's " + timeLeftMillis + " ms)"));
            }
            byte[] body;
            try {
                body = rows ? MergeWire.encodeRows(unit, type, mergeCopy.page(unit, type, ranges, which, after,
                                                                                MergeWire.PAGE))
                            : MergeWire.encodeDigests(unit, type, ranges, mergeCopy.digests(unit, type, ranges));
            } catch (RuntimeException e) {
                log.warn("{} of {} of unit {} in region {} failed", what, type, unit, region, e);
                return problem(type, what + "_failed", ProblemDetail.of(500, HomeReadWire.READ_FAILED, what + " of "
                        + type + " of unit " + unit + ": the copy of region " + region + " could not be read ("
                        + e.getClass().getSimpleName() + ")"));
            }
            if (!owns.test(unit)) {
                return notHome(type, unit);
            }
            count(type, what);
            return HttpResponse.of(HttpStatus.OK, MediaType.JSON, body);
        }, ctx.blockingTaskExecutor()));
    }

    /** A count of ranges as sent, or -1 when absent or not one. */
    private static int number(String value) {
        if (value == null || value.isEmpty() || value.length() > 9 || !value.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Integer.parseInt(value);
    }

    /** The comma-separated ranges below {@code ranges}, at most {@link MergeWire#MAX_WHICH}; null when malformed. */
    private static java.util.List<Integer> ranges(String which, int ranges) {
        if (which == null || which.isEmpty()) {
            return null;
        }
        String[] parts = which.split(",", MergeWire.MAX_WHICH + 1);
        if (parts.length > MergeWire.MAX_WHICH) {
            return null;
        }
        java.util.List<Integer> list = new java.util.ArrayList<>(parts.length);
        for (String part : parts) {
            int r = number(part);
            if (r < 0 || r >= ranges) {
                return null;
            }
            list.add(r);
        }
        return list;
    }

    /**
     * One idempotency operation: token, parameters, the store served, ownership (claims and reads that are not
     * copies), then the store on a blocking thread. Complete and release are not refused for a unit that moved: they
     * finish a claim this region granted, and refusing them would leave its record in flight until it expires.
     */
    private HttpResponse idempotency(Operation op, ServiceRequestContext ctx, HttpRequest req) {
        long arrived = ticker.getAsLong();
        ProblemDetail refused = unauthenticated(req);
        if (refused != null) {
            return idempotencyProblem(op, "unauthenticated", refused);
        }
        if (idempotency == null) {
            return idempotencyProblem(op, "not_served", ProblemDetail.of(404, IdempotencyWire.NOT_SERVED,
                    "region " + region + " serves no idempotency records (expected: a home-read server built with "
                    + "idempotency(store))"));
        }
        ProblemDetail twice = givenTwice(ctx, "unit", "key", "copy");
        if (twice != null) {
            return idempotencyProblem(op, "bad_request", twice);
        }
        String unit = ctx.queryParam("unit");
        String key = ctx.queryParam("key");
        if (unit == null || unit.isEmpty() || key == null || key.isEmpty()) {
            return idempotencyProblem(op, "bad_request", ProblemDetail.of(400, HomeReadWire.BAD_REQUEST,
                    "query: unit '" + unit + "', key '" + key + "' (expected: both)"));
        }
        boolean copy = op == Operation.RECORD && "true".equals(ctx.queryParam("copy"));
        boolean ownershipChecked = (op == Operation.RECORD && !copy) || op == Operation.CLAIM;
        if (ownershipChecked && !owns.test(unit)) {
            return idempotencyNotHome(op, unit);
        }
        long timeLeftMillis = timeLeftMillis(req.headers().get(HomeReadWire.TIMEOUT_HEADER));
        return HttpResponse.of(req.aggregate().thenApplyAsync(
                body -> runIdempotency(op, ctx, arrived, timeLeftMillis, unit, key, ownershipChecked,
                                       body.content().array()),
                ctx.blockingTaskExecutor()));
    }

    private HttpResponse runIdempotency(Operation op, ServiceRequestContext ctx, long arrived, long timeLeftMillis,
                                        String unit, String key, boolean ownershipChecked, byte[] body) {
        IdempotencyRecord claim = null;
        StoredResponse response = null;
        try {
            if (op == Operation.CLAIM) {
                claim = IdempotencyWire.decodeRecord(IdempotencyWire.tree(body, "claim body"), "claim body");
                if (!claim.key().equals(key) || !claim.inFlight()) {
                    throw new IllegalArgumentException("claim body: record of key '" + claim.key() + "'"
                            + (claim.inFlight() ? "" : ", completed") + " (expected: key '" + key + "', in flight)");
                }
            } else if (op == Operation.COMPLETE) {
                response = IdempotencyWire.decodeResponse(IdempotencyWire.tree(body, "complete body"),
                                                          "complete body");
            }
        } catch (IllegalArgumentException e) {
            return idempotencyProblem(op, "bad_request", ProblemDetail.of(400, HomeReadWire.BAD_REQUEST,
                                                                          e.getMessage()));
        }
        long waitedMillis = (ticker.getAsLong() - arrived) / 1_000_000;
        if (ctx.isCancelled() || waitedMillis >= timeLeftMillis) {
            // The caller has given up: it will never learn the outcome, so nothing is done (never a claim it
            // cannot know it holds).
            return idempotencyProblem(op, "expired", ProblemDetail.of(503, HomeReadWire.EXPIRED, op.tag()
                    + " of idempotency key '" + key + "' of unit " + unit + ": waited " + waitedMillis
                    + " ms in region " + region + " (expected: under the caller's " + timeLeftMillis
                    + " ms); not run"));
        }
        StoreResult<?> result;
        try {
            result = switch (op) {
                case RECORD -> idempotency.idempotencyRecord(key);
                case CLAIM -> idempotency.claim(claim);
                case COMPLETE -> idempotency.complete(key, response);
                case RELEASE -> idempotency.release(key);
            };
        } catch (RuntimeException e) {
            log.warn("{} of idempotency key '{}' of unit {} in region {} failed", op.tag(), key, unit, region, e);
            return idempotencyProblem(op, "failed", ProblemDetail.of(500, HomeReadWire.READ_FAILED, op.tag()
                    + " of idempotency key '" + key + "' of unit " + unit + ": the store of region " + region
                    + " failed (" + e.getClass().getSimpleName() + ")"));
        }
        if (ownershipChecked && !owns.test(unit)) {
            // The unit moved meanwhile: a record read may be stale, and a claim granted here would split the key
            // between two homes, so it is taken back.
            if (op == Operation.CLAIM && result.isOk()) {
                idempotency.release(key);
            }
            return idempotencyNotHome(op, unit);
        }
        if (op == Operation.CLAIM && result.isOk() && callerGone(ctx, arrived, timeLeftMillis)) {
            // The caller stopped waiting before the answer: it runs nothing, so the claim is taken back rather than
            // left to hold the key in flight until it expires.
            idempotency.release(key);
            return idempotencyProblem(op, "abandoned", ProblemDetail.of(503, HomeReadWire.EXPIRED, "claim of "
                    + "idempotency key '" + key + "' of unit " + unit + ": the caller stopped waiting; released"));
        }
        countIdempotency(op, result.status().name().toLowerCase(java.util.Locale.ROOT));
        return HttpResponse.of(HttpStatus.OK, MediaType.JSON, IdempotencyWire.result(region, unit, key, result));
    }

    private boolean callerGone(ServiceRequestContext ctx, long arrived, long timeLeftMillis) {
        return ctx.isCancelled() || (ticker.getAsLong() - arrived) / 1_000_000 >= timeLeftMillis;
    }

    private HttpResponse idempotencyNotHome(Operation op, String unit) {
        return idempotencyProblem(op, "not_home", ProblemType.NOT_HOME_REGION.problem(
                "unit " + unit + ": region " + region + " is not its home now (expected: " + op.tag()
                + " of an idempotency key sent to the unit's home region)"));
    }

    private HttpResponse idempotencyProblem(Operation op, String outcome, ProblemDetail problem) {
        countIdempotency(op, outcome);
        return respond(problem);
    }

    private void countIdempotency(Operation op, String outcome) {
        Counter.builder("unitas.data.home.idempotency.served")
               .description("Idempotency operations this region answered, by operation and outcome")
               .tag("region", region.id()).tag("operation", op.tag()).tag("outcome", outcome)
               .register(meters).increment();
    }

    private HttpResponse notHome(String type, String unit) {
        return problem(type, "not_home", ProblemType.NOT_HOME_REGION.problem(
                "unit " + unit + ": region " + region + " is not its home now (expected: a read sent to the unit's "
                + "home region)"));
    }

    private HttpResponse problem(String type, String outcome, ProblemDetail problem) {
        count(type, outcome);
        return respond(problem);
    }

    private static HttpResponse respond(ProblemDetail problem) {
        ResponseHeadersBuilder headers = ResponseHeaders.builder(problem.status()).contentType(PROBLEM_JSON);
        if (problem.status() == 401) {
            headers.add(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        return HttpResponse.of(headers.build(), com.linecorp.armeria.common.HttpData.wrap(ProblemJson.encode(problem)));
    }

    private void count(String type, String outcome) {
        // An unknown or absent type is not a tag value: a caller could otherwise create any number of meters.
        String typeTag = type != null && (readers.containsKey(type) || mergeTypes.contains(type)) ? type : "none";
        Counter.builder("unitas.data.home.read.served")
               .description("Home reads this region answered, by entity type and outcome")
               .tag("region", region.id()).tag("type", typeTag).tag("outcome", outcome)
               .register(meters).increment();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    @Override
    public Region region() {
        return region;
    }

    @Override
    public int port() {
        return server.activeLocalPort();
    }

    @Override
    public URI uri() {
        InetAddress bound = server.activePort().localAddress().getAddress();
        String host = bound.isAnyLocalAddress() || bound.isLoopbackAddress() ? "127.0.0.1"
                      : bound.getHostAddress().contains(":") ? "[" + bound.getHostAddress() + "]"
                      : bound.getHostAddress();
        return URI.create((tls ? "https://" : "http://") + host + ":" + port());
    }

    @Override
    public void close() {
        server.stop().join();
    }
}
