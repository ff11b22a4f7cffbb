package io.unitas.data.remote;

import java.net.URI;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.linecorp.armeria.client.ClientFactory;
import com.linecorp.armeria.client.ClientFactoryBuilder;
import com.linecorp.armeria.client.Endpoint;
import com.linecorp.armeria.client.endpoint.EndpointGroup;
import com.linecorp.armeria.client.endpoint.EndpointSelectionStrategy;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.client.UnprocessedRequestException;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.common.QueryParamsBuilder;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.common.util.Exceptions;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;
import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.remote.IdempotencyWire.Operation;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;

/**
 * {@link HomeReadClient} on Armeria's HTTP/2 client. Every time decision (hedge, deadline) is taken on the injected
 * {@link Timers}; Armeria's own response timeout is off so that only those decide. At most two attempts per call:
 * reads hedge and retry, a complete and a claim with a claim token retry, a claim without one or a release goes again
 * only when the home never received it.
 */
final class ArmeriaHomeReadClient implements HomeReadClient {

    private static final Logger log = LoggerFactory.getLogger(ArmeriaHomeReadClient.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final ClientFactory factory;
    private final Map<Region, WebClient> clients;
    private final Map<Region, List<URI>> endpoints;
    private final String authorization;
    private final long deadlineNanos;
    private final String deadlineName;
    private final long hedgeNanos;
    private final Duration retryAfter;
    private final MeterRegistry registry;
    private final Timers timers;
    private final ConcurrentHashMap<Region, Meters> meters = new ConcurrentHashMap<>();
    private final AtomicLong lastRejectionWarning = new AtomicLong();
    private volatile boolean closed;

    /** The meters of one home, created once. */
    private record Meters(Map<HomeRead.Outcome, Counter> reads, Timer duration, Counter hedges, Counter retries) {}

    ArmeriaHomeReadClient(HomeReadClient.Builder b, Timers timers) {
        // The read's deadline is on the timers; a connection slow to open is left to finish and serves the reads
        // after it, so only a connection that cannot open at all fails on Armeria's clock.
        Duration connectTimeout = b.deadline.compareTo(CONNECT_TIMEOUT) > 0 ? b.deadline : CONNECT_TIMEOUT;
        ClientFactoryBuilder fb = ClientFactory.builder().connectTimeout(connectTimeout);
        java.io.File ca = b.trustedCa == null ? null : b.trustedCa.toFile();
        java.io.File cert = b.clientCert == null ? null : b.clientCert.toFile();
        java.io.File key = b.clientKey == null ? null : b.clientKey.toFile();
        if (ca != null || cert != null) {
            // one customizer for both: the CA to trust the homes by, and the certificate to show them
            fb.tlsCustomizer(tls -> {
                if (ca != null) {
                    tls.trustManager(ca);
                }
                if (cert != null) {
                    tls.keyManager(cert, key);
                }
            });
        }
        this.factory = fb.build();
        Map<Region, WebClient> clients = new java.util.HashMap<>();
        Map<Region, List<URI>> endpoints = new java.util.HashMap<>();
        b.endpoints.forEach((home, instances) -> {
            clients.put(home, webClient(instances));
            endpoints.put(home, List.copyOf(instances));
        });
        this.clients = Map.copyOf(clients);
        this.endpoints = Map.copyOf(endpoints);
        this.authorization = "Bearer " + b.token;
        this.deadlineNanos = b.deadline.toNanos();
        this.deadlineName = b.deadlineName == null ? "" : " (" + b.deadlineName + ")";
        this.hedgeNanos = b.hedgeAfter == null ? 0 : b.hedgeAfter.toNanos();
        this.retryAfter = b.retryAfter;
        this.registry = b.meters;
        this.timers = timers;
    }

    /** A client of a home's instances, each request to the next in turn (one scheme for all, checked when given). */
    private WebClient webClient(List<URI> instances) {
        SessionProtocol protocol = "https".equals(instances.get(0).getScheme()) ? SessionProtocol.H2
                                                                               : SessionProtocol.H2C;
        EndpointGroup group = EndpointGroup.of(EndpointSelectionStrategy.roundRobin(),
                instances.stream().map(uri -> Endpoint.of(uri.getHost(), uri.getPort())).toList());
        return WebClient.builder(protocol, group)
                        .factory(factory)
                        .responseTimeout(Duration.ZERO)
                        .build();
    }

    @Override
    public CompletionStage<HomeRead> read(Region home, String unit, String entityType, String key) {
        return read(home, unit, entityType, key, false);
    }

    @Override
    public CompletionStage<HomeRead> readCopy(Region region, String unit, String entityType, String key) {
        return read(region, unit, entityType, key, true);
    }

    private CompletionStage<HomeRead> read(Region home, String unit, String type, String key, boolean copy) {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(type, "entityType");
        Objects.requireNonNull(key, "key");
        QueryParamsBuilder query = QueryParams.builder().add("unit", unit).add("type", type).add("key", key);
        if (copy) {
            query.add("copy", "true");
        }
        EntityRead read = new EntityRead(home, unit, type, key, copy);
        return new Call<>(home, HttpMethod.GET, HomeReadWire.PATH + "?" + query.build().toQueryString(), null,
                          Attempts.HEDGED, read).start();
    }

    @Override
    public io.unitas.data.merge.MergeDigests mergeCopy(Region home) {
        Objects.requireNonNull(home, "home");
        return new RemoteMergeDigests(this, home);
    }

    /**
     * One read of a home's merged copy at {@code path} with {@code query}: the decoded 200 answer, or an
     * {@link IllegalStateException} naming the home and why there is none. Blocks until the call is over.
     */
    <T> T mergeCall(Region home, String path, QueryParams query, String what,
                    java.util.function.Function<byte[], T> decode) {
        MergeRead<T> read = new MergeRead<>(home, what, decode);
        MergeAnswer<T> answer = new Call<>(home, HttpMethod.GET, path + "?" + query.toQueryString(), null,
                                           Attempts.HEDGED, read).start().join();
        if (answer.value() == null) {
            throw new IllegalStateException(answer.failure());
        }
        return answer.value();
    }

    /** A merged copy's answer, or why there is none, with its metric tag. */
    record MergeAnswer<T>(T value, String failure, String outcome, boolean failed) {}

    /** A read of a home's merged copy for reconciliation. */
    private final class MergeRead<T> implements Conclusion<MergeAnswer<T>> {
        final Region home;
        final String what;
        final java.util.function.Function<byte[], T> decode;

        MergeRead(Region home, String what, java.util.function.Function<byte[], T> decode) {
            this.home = home;
            this.what = what;
            this.decode = decode;
        }

        @Override
        public MergeAnswer<T> answered(AggregatedHttpResponse answer) {
            int status = answer.status().code();
            if (status == 200) {
                try {
                    return new MergeAnswer<>(decode.apply(answer.content().array()), null, "ok", false);
                } catch (IllegalArgumentException e) {
                    return failure("home_failed", e.getMessage(), true);
                }
            }
            ProblemDetail problem = problemOf(answer);
            String said = "answered " + problem;
            if (status == 421 && HomeReadWire.NOT_HOME_REGION.equals(problem.type())) {
                return failure("not_home", said, false);
            }
            if (status >= 500) {
                return failure("home_failed", said, true);
            }
            warnRejected(home, what, problem, "unitas_data_home_merge_reads_total{outcome=\"rejected\"}");
            return failure("rejected", said, false);
        }

        @Override
        public MergeAnswer<T> silent(HomeRead.Outcome outcome, String why, boolean mayHaveRun) {
            return failure(outcome.tag(), why, true);
        }

        MergeAnswer<T> failure(String outcome, String why, boolean failed) {
            return new MergeAnswer<>(null, what + " from home region " + home + ": " + why + " (peer "
                                           + String.join(", ", endpoints.getOrDefault(home, List.of()).stream()
                                                                        .map(URI::toString).toList()) + ")",
                                     outcome, failed);
        }

        @Override
        public boolean failed(MergeAnswer<T> answer) {
            return answer.failed();
        }

        @Override
        public void record(MergeAnswer<T> answer, long nanos) {
            Counter.builder("unitas.data.home.merge.reads")
                   .description("Reads of a home region's copy of the merged entities for reconciliation, by outcome")
                   .tag("home", home.id()).tag("what", what.startsWith("rows") ? "rows" : "digests")
                   .tag("outcome", answer.outcome()).register(registry).increment();
        }
    }

    @Override
    public IdempotencyStore idempotency(Region home, String unit) {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(unit, "unit");
        return new RemoteIdempotencyStore(this, home, unit);
    }

    @Override
    public CompletionStage<StoreResult<IdempotencyRecord>> idempotencyRecordCopy(Region region, String unit,
                                                                                 String key) {
        return idempotencyCall(region, unit, Operation.RECORD, key, null, true)
                .thenApply(RemoteIdempotencyStore::record);
    }

    /** One idempotency operation at {@code home}: never exceptionally, by the deadline, as a store's answer. */
    CompletionStage<StoreResult<?>> idempotencyCall(Region home, String unit, Operation op, String key, byte[] body,
                                                    boolean copy) {
        return idempotencyCall(home, unit, op, key, body, copy, false);
    }

    /**
     * As above; {@code tokenedClaim}: a claim carrying a claim token, which the home grants again when it already
     * holds it, so it may be sent again like a complete.
     */
    CompletionStage<StoreResult<?>> idempotencyCall(Region home, String unit, Operation op, String key, byte[] body,
                                                    boolean copy, boolean tokenedClaim) {
        Objects.requireNonNull(key, "key");
        QueryParamsBuilder query = QueryParams.builder().add("unit", unit).add("key", key);
        if (copy) {
            query.add("copy", "true");
        }
        // Reading is safe to repeat; completing with the same response twice is the same as once; so is a claim with
        // a claim token (the home grants its own claim again, and anyone else's stays a conflict). A claim without
        // one or a release repeated could take or free a key another request holds by then, so it goes once
        // (docs/data.md).
        Attempts attempts = switch (op) {
            case RECORD -> Attempts.HEDGED;
            case COMPLETE -> Attempts.RETRIED;
            case CLAIM -> tokenedClaim ? Attempts.RETRIED : Attempts.ONCE;
            case RELEASE -> Attempts.ONCE;
        };
        return new Call<>(home, op == Operation.RECORD ? HttpMethod.GET : HttpMethod.POST,
                          op.path + "?" + query.build().toQueryString(), body, attempts,
                          new IdempotencyOp(home, unit, op, key)).start().thenApply(OpResult::result);
    }

    /** How many attempts a call may make. */
    private enum Attempts {
        /** Reads: one hedge after {@code hedgeAfter}, or one retry at once when the first fails unanswered or 5xx. */
        HEDGED,
        /**
         * A write that is the same done twice (a complete, a claim with a token): one retry at once when the first
         * fails unanswered or 5xx.
         */
        RETRIED,
        /** A write that must not run twice: a second attempt only when the home never received the first. */
        ONCE
    }

    /** What a call makes of the home's answers and silences, and what it counts. */
    private interface Conclusion<T> {
        T answered(AggregatedHttpResponse answer);

        /** No answer: {@code outcome} is {@code UNREACHABLE} or {@code TIMED_OUT}. */
        T silent(HomeRead.Outcome outcome, String why, boolean mayHaveRun);

        /** Whether this result is a failure another attempt may mend (no answer, or a 5xx). */
        boolean failed(T result);

        void record(T result, long nanos);
    }

    /** One request to a home: up to two attempts, the first conclusive answer or the deadline ends it. */
    private final class Call<T> {
        final Region home;
        final HttpMethod method;
        final String path;
        final byte[] body;
        final Attempts policy;
        final Conclusion<T> conclusion;
        final long startNanos = timers.nanoTime();
        final CompletableFuture<T> result = new CompletableFuture<>();
        final CompletableFuture<T> finished;
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        final HttpResponse[] responses = new HttpResponse[2];
        final AtomicBoolean recorded = new AtomicBoolean();
        WebClient web;
        volatile Timers.Timer hedge;
        volatile Timers.Timer deadline;

        Call(Region home, HttpMethod method, String path, byte[] body, Attempts policy, Conclusion<T> conclusion) {
            this.home = home;
            this.method = method;
            this.path = path;
            this.body = body;
            this.policy = policy;
            this.conclusion = conclusion;
            // Callers see the call once it is finished: timers called off, attempts cancelled, meters counted.
            this.finished = result.whenComplete((value, e) -> finish(value));
        }

        CompletableFuture<T> start() {
            WebClient w = clients.get(home);
            if (w == null || closed) {
                result.complete(conclusion.silent(HomeRead.Outcome.UNREACHABLE, w == null
                        ? "no endpoint for it (expected: one of " + clients.keySet() + ")" : "the client is closed",
                        false));
                return finished;
            }
            this.web = w;
            attempts.set(1);
            try {
                deadline = timers.schedule(() -> result.complete(conclusion.silent(HomeRead.Outcome.TIMED_OUT,
                        "no answer within the deadline of " + TimeUnit.NANOSECONDS.toMillis(deadlineNanos) + " ms"
                        + deadlineName,
                        true)), deadlineNanos);
                if (policy == Attempts.HEDGED && hedgeNanos > 0) {
                    hedge = timers.schedule(() -> second("hedge"), hedgeNanos);
                }
            } catch (RuntimeException e) { // the timers are shut: the client is closing
                result.complete(conclusion.silent(HomeRead.Outcome.UNREACHABLE, "the client is closed", false));
                return finished;
            }
            attempt(0);
            return finished;
        }

        /** Sends the second attempt unless one was sent or the call is over. */
        void second(String reason) {
            if (!result.isDone() && attempts.compareAndSet(1, 2)) {
                Meters m = meters(home);
                (reason.equals("hedge") ? m.hedges : m.retries).increment();
                attempt(1);
            }
        }

        void attempt(int index) {
            long leftNanos = deadlineNanos - (timers.nanoTime() - startNanos);
            long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNanos));
            HttpResponse response;
            try {
                RequestHeaders headers = RequestHeaders.builder(method, path)
                                                       .add(HttpHeaderNames.AUTHORIZATION, authorization)
                                                       .add(HomeReadWire.TIMEOUT_HEADER, Long.toString(leftMillis))
                                                       .build();
                response = body == null ? web.execute(headers)
                                        : web.execute(headers, HttpData.wrap(body));
            } catch (RuntimeException e) {
                answered(null, e);
                return;
            }
            synchronized (responses) {
                responses[index] = response;
            }
            if (result.isDone()) {
                response.abort();
                return;
            }
            response.aggregate().handle((answer, e) -> {
                answered(answer, e);
                return null;
            });
        }

        void answered(AggregatedHttpResponse answer, Throwable error) {
            if (result.isDone()) {
                return; // the call is over; this is a late or aborted attempt
            }
            Throwable peeled = error == null ? null : Exceptions.peel(error);
            T value = peeled != null ? conclusion.silent(HomeRead.Outcome.UNREACHABLE, "no answer (" + what(peeled)
                                                         + ")", !(peeled instanceof UnprocessedRequestException))
                                     : conclusion.answered(answer);
            if (policy == Attempts.ONCE) {
                // Only a request the home never received may go again: anything else may have run there. There is
                // no hedge, so at most one attempt is out at a time.
                if (peeled instanceof UnprocessedRequestException && attempts.get() == 1) {
                    second("retry");
                    return;
                }
                result.complete(value);
                return;
            }
            if (conclusion.failed(value)) {
                int failed = failures.incrementAndGet();
                if (attempts.get() == 1) {
                    second("retry");
                }
                if (failed < attempts.get()) {
                    return; // the other attempt may still answer
                }
            }
            result.complete(value);
        }

        void finish(T value) {
            Timers.Timer h = hedge;
            Timers.Timer d = deadline;
            if (h != null) {
                h.cancel();
            }
            if (d != null) {
                d.cancel();
            }
            synchronized (responses) {
                for (HttpResponse r : responses) {
                    if (r != null) {
                        r.abort();
                    }
                }
            }
            if (value != null && recorded.compareAndSet(false, true)) {
                conclusion.record(value, timers.nanoTime() - startNanos);
            }
        }
    }

    private static String what(Throwable e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() != null ? cause.getClass().getSimpleName() + ": " + cause.getMessage()
                                          : cause.getClass().getSimpleName();
    }

    /** The problem in a non-200 answer, or one made up from its status when it carries none. */
    private static ProblemDetail problemOf(AggregatedHttpResponse answer) {
        int status = answer.status().code();
        try {
            return ProblemJson.decode(answer.content().array(), status, Duration.ZERO);
        } catch (IllegalArgumentException e) {
            return ProblemType.UNEXPECTED_ANSWER.problem("status " + status + ", no problem body");
        }
    }

    /** Warns that a home refused a request, at most once a minute (a token or deployment mismatch). */
    private void warnRejected(Region home, String what, ProblemDetail problem, String meter) {
        long now = timers.nanoTime();
        long last = lastRejectionWarning.get();
        if ((last == 0 || now - last >= WARN_EVERY_NANOS) && lastRejectionWarning.compareAndSet(last, now)) {
            log.warn("home region {} refused {} ({}): check the token and what it serves "
                     + "(logged at most once a minute; see {})", home, what, problem, meter);
        }
    }

    /** A read of one entity, as a {@link HomeRead}. */
    private final class EntityRead implements Conclusion<HomeRead> {
        final Region home;
        final String unit;
        final String type;
        final String key;
        final boolean copy;

        EntityRead(Region home, String unit, String type, String key, boolean copy) {
            this.home = home;
            this.unit = unit;
            this.type = type;
            this.key = key;
            this.copy = copy;
        }

        @Override
        public HomeRead answered(AggregatedHttpResponse answer) {
            int status = answer.status().code();
            if (status == 200) {
                try {
                    StoredEntity entity = HomeReadWire.decode(answer.content().array(), unit, key);
                    return new HomeRead(HomeRead.Outcome.FOUND, home, entity, null, status,
                                        what() + ": read from " + (copy ? "region " : "home region ") + home);
                } catch (IllegalArgumentException e) {
                    return notReady(HomeRead.Outcome.HOME_FAILED, status, e.getMessage());
                }
            }
            ProblemDetail problem = problemOf(answer);
            if (status == 404 && HomeReadWire.ENTITY_NOT_FOUND.equals(problem.type())) {
                return new HomeRead(HomeRead.Outcome.NOT_FOUND, home, null, null, status, what() + (copy
                        ? ": not in region " + home + " (a copy read: it may be elsewhere)"
                        : ": does not exist (home region " + home + " says so)"));
            }
            String said = "answered " + problem;
            if (status == 421 && HomeReadWire.NOT_HOME_REGION.equals(problem.type())) {
                return notReady(HomeRead.Outcome.NOT_HOME, status, said);
            }
            if (status >= 500) {
                return notReady(HomeRead.Outcome.HOME_FAILED, status, said);
            }
            warnRejected(home, "a home read", problem, "unitas_data_home_reads_total{outcome=\"rejected\"}");
            return notReady(HomeRead.Outcome.REJECTED, status, said);
        }

        @Override
        public HomeRead silent(HomeRead.Outcome outcome, String why, boolean mayHaveRun) {
            return notReady(outcome, 0, why);
        }

        @Override
        public boolean failed(HomeRead read) {
            return read.outcome() == HomeRead.Outcome.UNREACHABLE || read.outcome() == HomeRead.Outcome.HOME_FAILED;
        }

        @Override
        public void record(HomeRead read, long nanos) {
            Meters m = meters(home);
            m.reads.get(read.outcome()).increment();
            m.duration.record(nanos, TimeUnit.NANOSECONDS);
        }

        HomeRead notReady(HomeRead.Outcome outcome, int status, String why) {
            String detail = what() + ": " + (copy ? "region " : "home region ") + home + " cannot be read: " + why;
            return new HomeRead(outcome, home, null, ProblemType.DATA_NOT_READY.problem(detail, retryAfter)
                                                                  .withTitle("Data not ready"), status, detail);
        }

        String what() {
            return type + " '" + key + "' of unit " + unit;
        }
    }

    /** An idempotency operation's answer: the home store's result, or why there is none, with its metric tag. */
    record OpResult(StoreResult<?> result, String outcome, boolean failed) {}

    /** One idempotency operation at a home, as the home store's {@link StoreResult}. */
    private final class IdempotencyOp implements Conclusion<OpResult> {
        final Region home;
        final String unit;
        final Operation op;
        final String key;

        IdempotencyOp(Region home, String unit, Operation op, String key) {
            this.home = home;
            this.unit = unit;
            this.op = op;
            this.key = key;
        }

        @Override
        public OpResult answered(AggregatedHttpResponse answer) {
            int status = answer.status().code();
            if (status == 200) {
                try {
                    StoreResult<?> r = IdempotencyWire.decodeResult(answer.content().array(), unit, key,
                                                                    op != Operation.RELEASE);
                    return new OpResult(r, r.status().name().toLowerCase(java.util.Locale.ROOT), false);
                } catch (IllegalArgumentException e) {
                    return unavailable("home_failed", e.getMessage(), true);
                }
            }
            ProblemDetail problem = problemOf(answer);
            String said = "answered " + problem;
            if (status == 421 && HomeReadWire.NOT_HOME_REGION.equals(problem.type())) {
                return unavailable("not_home", said, false);
            }
            if (status >= 500) {
                return unavailable("home_failed", said, true);
            }
            warnRejected(home, "an idempotency " + op.tag(), problem,
                         "unitas_data_home_idempotency_calls_total{outcome=\"rejected\"}");
            return unavailable("rejected", said, false);
        }

        @Override
        public OpResult silent(HomeRead.Outcome outcome, String why, boolean mayHaveRun) {
            String unknown = mayHaveRun && (op == Operation.CLAIM || op == Operation.RELEASE)
                             ? "; its outcome is unknown (at worst the key stays in flight until it expires)" : "";
            return unavailable(outcome.tag(), why + unknown, true);
        }

        OpResult unavailable(String outcome, String why, boolean failed) {
            // the peer tried, so the message says which address of the home to check
            List<URI> peers = endpoints.get(home);
            return new OpResult(StoreResult.unavailable(home, op.tag() + " of idempotency key '" + key + "' of unit "
                                                              + unit + " at home region " + home + ": " + why
                                                              + (peers == null ? " (no peer of " + home + " configured)"
                                                                               : " (peer " + String.join(", ",
                                                                      peers.stream().map(URI::toString).toList())
                                                                                 + ")")),
                                outcome, failed);
        }

        @Override
        public boolean failed(OpResult r) {
            return r.failed();
        }

        @Override
        public void record(OpResult r, long nanos) {
            Counter.builder("unitas.data.home.idempotency.calls")
                   .description("Idempotency operations sent to a home region, by operation and outcome")
                   .tag("home", home.id()).tag("operation", op.tag()).tag("outcome", r.outcome())
                   .register(registry).increment();
            Timer.builder("unitas.data.home.idempotency.duration")
                 .description("Time from an idempotency operation's start to its outcome, attempts included")
                 .tag("home", home.id()).tag("operation", op.tag()).publishPercentileHistogram()
                 .register(registry).record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    private Meters meters(Region home) {
        return meters.computeIfAbsent(home, h -> {
            Map<HomeRead.Outcome, Counter> reads = new EnumMap<>(HomeRead.Outcome.class);
            for (HomeRead.Outcome o : HomeRead.Outcome.values()) {
                reads.put(o, Counter.builder("unitas.data.home.reads")
                                    .description("Reads from a home region, by outcome")
                                    .tag("home", h.id()).tag("outcome", o.tag()).register(registry));
            }
            Timer duration = Timer.builder("unitas.data.home.read.duration")
                                  .description("Time from a home read's start to its outcome, both attempts included")
                                  .tag("home", h.id()).publishPercentileHistogram().register(registry);
            Counter hedges = Counter.builder("unitas.data.home.read.second.attempts")
                                    .description("Second attempts of home reads: a hedge of a slow first attempt, or "
                                                 + "a retry of a failed one")
                                    .tag("home", h.id()).tag("reason", "hedge").register(registry);
            Counter retries = Counter.builder("unitas.data.home.read.second.attempts")
                                     .description("Second attempts of home reads: a hedge of a slow first attempt, or "
                                                  + "a retry of a failed one")
                                     .tag("home", h.id()).tag("reason", "retry").register(registry);
            return new Meters(Map.copyOf(reads), duration, hedges, retries);
        });
    }

    @Override
    public CompletionStage<Map<Region, String>> connect() {
        Map<Region, String> failed = new ConcurrentHashMap<>();
        CompletableFuture<?>[] all = clients.entrySet().stream().map(e -> e.getValue()
                .execute(RequestHeaders.of(HttpMethod.GET, HomeReadWire.CONNECT_PATH)).aggregate()
                .handle((answer, error) -> {
                    if (error != null) {
                        failed.put(e.getKey(), what(Exceptions.peel(error)));
                    }
                    return null;
                })).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(all).thenApply(ignored -> Map.copyOf(failed));
    }

    @Override
    public CompletionStage<Map<Region, Declarations>> declarations() {
        Map<Region, Declarations> answers = new ConcurrentHashMap<>();
        CompletableFuture<?>[] all = clients.entrySet().stream().map(e -> e.getValue()
                .execute(RequestHeaders.builder(HttpMethod.GET, HomeReadWire.DECLARATIONS_PATH)
                                       .add(HttpHeaderNames.AUTHORIZATION, authorization).build()).aggregate()
                .handle((answer, error) -> {
                    answers.put(e.getKey(), declarations(answer, error));
                    return null;
                })).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(all).thenApply(ignored -> Map.copyOf(answers));
    }

    private static Declarations declarations(AggregatedHttpResponse answer, Throwable error) {
        if (error != null) {
            return new Declarations(null, "unreachable (" + what(Exceptions.peel(error)) + ")");
        }
        if (answer.status().code() != 200) {
            ProblemDetail problem = problemOf(answer);
            return new Declarations(null, "answered " + problem.status() + " (" + problem.detail() + ")");
        }
        try {
            return new Declarations(HomeReadWire.decodeDeclarations(answer.content().array()), null);
        } catch (IllegalArgumentException bad) {
            return new Declarations(null, bad.getMessage());
        }
    }

    @Override
    public void close() {
        closed = true;
        factory.close();
        timers.close();
    }
}
