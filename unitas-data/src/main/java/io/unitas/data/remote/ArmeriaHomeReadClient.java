package io.unitas.data.remote;

import java.net.URI;
import java.time.Duration;
import java.util.EnumMap;
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
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.common.util.Exceptions;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.Region;

/**
 * {@link HomeReadClient} on Armeria's HTTP/2 client. Every time decision (hedge, deadline) is taken on the injected
 * {@link Timers}; Armeria's own response timeout is off so that only those decide. At most two attempts per read.
 */
final class ArmeriaHomeReadClient implements HomeReadClient {

    private static final Logger log = LoggerFactory.getLogger(ArmeriaHomeReadClient.class);
    private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final ClientFactory factory;
    private final Map<Region, WebClient> clients;
    private final String authorization;
    private final long deadlineNanos;
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
        if (b.trustedCa != null) {
            java.io.File ca = b.trustedCa.toFile();
            fb.tlsCustomizer(tls -> tls.trustManager(ca));
        }
        this.factory = fb.build();
        Map<Region, WebClient> clients = new java.util.HashMap<>();
        b.endpoints.forEach((home, uri) -> clients.put(home, webClient(uri)));
        this.clients = Map.copyOf(clients);
        this.authorization = "Bearer " + b.token;
        this.deadlineNanos = b.deadline.toNanos();
        this.hedgeNanos = b.hedgeAfter == null ? 0 : b.hedgeAfter.toNanos();
        this.retryAfter = b.retryAfter;
        this.registry = b.meters;
        this.timers = timers;
    }

    private WebClient webClient(URI uri) {
        SessionProtocol protocol = "https".equals(uri.getScheme()) ? SessionProtocol.H2 : SessionProtocol.H2C;
        return WebClient.builder(protocol, Endpoint.of(uri.getHost(), uri.getPort()))
                        .factory(factory)
                        .responseTimeout(Duration.ZERO)
                        .build();
    }

    @Override
    public CompletionStage<HomeRead> read(Region home, String unit, String entityType, String key) {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(entityType, "entityType");
        Objects.requireNonNull(key, "key");
        Call call = new Call(home, unit, entityType, key);
        WebClient web = clients.get(home);
        if (web == null || closed) {
            call.result.complete(call.notReady(HomeRead.Outcome.UNREACHABLE, 0, web == null
                    ? "no endpoint for it (expected: one of " + clients.keySet() + ")" : "the client is closed"));
            return call.finished;
        }
        call.start(web);
        return call.finished;
    }

    /** One read: up to two attempts, the first conclusive answer or the deadline ends it. */
    private final class Call {
        final Region home;
        final String unit;
        final String type;
        final String key;
        final long startNanos = timers.nanoTime();
        final CompletableFuture<HomeRead> result = new CompletableFuture<>();
        final CompletableFuture<HomeRead> finished;
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        final HttpResponse[] responses = new HttpResponse[2];
        final AtomicBoolean recorded = new AtomicBoolean();
        WebClient web;
        String path;
        volatile Timers.Timer hedge;
        volatile Timers.Timer deadline;

        Call(Region home, String unit, String type, String key) {
            this.home = home;
            this.unit = unit;
            this.type = type;
            this.key = key;
            // Callers see the read once it is finished: timers called off, attempts cancelled, meters counted.
            this.finished = result.whenComplete((read, e) -> finish(read));
        }

        void start(WebClient web) {
            this.web = web;
            String query = QueryParams.builder().add("unit", unit).add("type", type).add("key", key).build()
                                      .toQueryString();
            this.path = HomeReadWire.PATH + "?" + query;
            attempts.set(1);
            try {
                deadline = timers.schedule(() -> result.complete(notReady(HomeRead.Outcome.TIMED_OUT, 0,
                        "no answer within the deadline of " + TimeUnit.NANOSECONDS.toMillis(deadlineNanos) + " ms")),
                        deadlineNanos);
                if (hedgeNanos > 0) {
                    hedge = timers.schedule(() -> second("hedge"), hedgeNanos);
                }
            } catch (RuntimeException e) { // the timers are shut: the client is closing
                result.complete(notReady(HomeRead.Outcome.UNREACHABLE, 0, "the client is closed"));
                return;
            }
            attempt(0);
        }

        /** Sends the second attempt unless one was sent or the read is over. */
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
                response = web.execute(RequestHeaders.builder(HttpMethod.GET, path)
                                                     .add(HttpHeaderNames.AUTHORIZATION, authorization)
                                                     .add(HomeReadWire.TIMEOUT_HEADER, Long.toString(leftMillis))
                                                     .build());
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
                return; // the read is over; this is a late or aborted attempt
            }
            HomeRead read = error != null ? failure(Exceptions.peel(error)) : answer(answer);
            if (read.outcome() == HomeRead.Outcome.UNREACHABLE || read.outcome() == HomeRead.Outcome.HOME_FAILED) {
                int failed = failures.incrementAndGet();
                if (attempts.get() == 1) {
                    second("retry");
                }
                if (failed < attempts.get()) {
                    return; // the other attempt may still answer
                }
            }
            result.complete(read);
        }

        HomeRead failure(Throwable e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            String what = cause.getMessage() != null ? cause.getClass().getSimpleName() + ": " + cause.getMessage()
                                                     : cause.getClass().getSimpleName();
            return notReady(HomeRead.Outcome.UNREACHABLE, 0, "no answer (" + what + ")");
        }

        HomeRead answer(AggregatedHttpResponse answer) {
            int status = answer.status().code();
            byte[] body = answer.content().array();
            if (status == 200) {
                try {
                    StoredEntity entity = HomeReadWire.decode(body, unit, key);
                    return new HomeRead(HomeRead.Outcome.FOUND, home, entity, null, status,
                                        what() + ": read from home region " + home);
                } catch (IllegalArgumentException e) {
                    return notReady(HomeRead.Outcome.HOME_FAILED, status, e.getMessage());
                }
            }
            ProblemDetail problem;
            try {
                problem = ProblemJson.decode(body, status, Duration.ZERO);
            } catch (IllegalArgumentException e) {
                problem = ProblemDetail.of(status, "about:blank", "status " + status + ", no problem body");
            }
            if (status == 404 && HomeReadWire.ENTITY_NOT_FOUND.equals(problem.type())) {
                return new HomeRead(HomeRead.Outcome.NOT_FOUND, home, null, null, status,
                                    what() + ": does not exist (home region " + home + " says so)");
            }
            String said = "answered " + problem;
            if (status == 421 && HomeReadWire.NOT_HOME_REGION.equals(problem.type())) {
                return notReady(HomeRead.Outcome.NOT_HOME, status, said);
            }
            if (status >= 500) {
                return notReady(HomeRead.Outcome.HOME_FAILED, status, said);
            }
            long now = timers.nanoTime();
            long last = lastRejectionWarning.get();
            if ((last == 0 || now - last >= WARN_EVERY_NANOS) && lastRejectionWarning.compareAndSet(last, now)) {
                log.warn("home region {} refused a home read ({}): check the token and the entity types it serves "
                         + "(logged at most once a minute; see unitas_data_home_reads_total{{outcome=\"rejected\"}})",
                         home, problem);
            }
            return notReady(HomeRead.Outcome.REJECTED, status, said);
        }

        HomeRead notReady(HomeRead.Outcome outcome, int status, String why) {
            String detail = what() + ": home region " + home + " cannot be read: " + why;
            return new HomeRead(outcome, home, null, ProblemDetail.of(503, "data-not-ready", detail, retryAfter)
                                                                  .withTitle("Data not ready"), status, detail);
        }

        String what() {
            return type + " '" + key + "' of unit " + unit;
        }

        void finish(HomeRead read) {
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
            if (read != null && recorded.compareAndSet(false, true)) {
                Meters m = meters(home);
                m.reads.get(read.outcome()).increment();
                m.duration.record(timers.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
            }
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
    public void close() {
        closed = true;
        factory.close();
        timers.close();
    }
}
