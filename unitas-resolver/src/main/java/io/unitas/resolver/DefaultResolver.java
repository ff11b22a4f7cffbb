package io.unitas.resolver;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.config.internal.FileStamp;
import io.unitas.core.endpoint.EndpointHealth;
import io.unitas.core.endpoint.EndpointHealthPolicy;
import io.unitas.core.endpoint.EndpointPicker;
import io.unitas.core.endpoint.EndpointState;
import io.unitas.core.internal.RttWindow;
import io.unitas.resolver.DnsQuerier.Answer;
import io.unitas.resolver.DnsQuerier.Outcome;
import io.unitas.resolver.DnsQuerier.Target;

/**
 * {@link UnitasResolver}: one lock guards the per-service entries and the tracked endpoints; picks read an
 * immutable view (resolution and picker) without it. A tick on a thread of its own reads the injected clock for
 * due probes, slow queries, expired TTLs and pool file changes, so tests drive all timing by moving that clock.
 */
final class DefaultResolver implements UnitasResolver {

    private static final Logger LOG = LoggerFactory.getLogger(UnitasResolver.class);

    private final Object lock = new Object();
    private final Clock clock;
    private final FallbackTriggers triggers;
    private final EndpointHealthPolicy policy;
    private final EndpointProbe probe;
    private final long probeIntervalNanos;
    private final java.time.Duration rttWindow;
    private final Path poolFile;
    private final long poolCheckNanos;
    private final DnsQuerier dns;
    private final ScheduledExecutorService tickThread;
    private final Map<ServiceName, Entry> entries = new ConcurrentHashMap<>();
    private final Map<InetSocketAddress, Tracked> tracked = new ConcurrentHashMap<>();
    private volatile FallbackPool pool = FallbackPool.EMPTY;
    private FileStamp poolStamp;
    private long nextPoolCheck;

    private final MeterRegistry meters;
    private final Counter poolLoaded;
    private final Counter poolRefused;
    private final Counter recoveries;
    private final Counter tickFailures;

    DefaultResolver(UnitasResolver.Builder b) {
        this.clock = b.clock;
        this.triggers = b.triggers;
        this.policy = b.healthPolicy;
        this.probe = b.probe;
        this.probeIntervalNanos = b.probeInterval.toNanos();
        this.rttWindow = b.rttWindow;
        this.poolFile = b.poolFile;
        this.poolCheckNanos = b.poolCheckInterval.toNanos();
        this.meters = b.meters;
        this.poolLoaded = Counter.builder("unitas.resolver.pool.reloads").tag("outcome", "loaded")
                .description("Fallback pool files loaded").register(meters);
        this.poolRefused = Counter.builder("unitas.resolver.pool.reloads").tag("outcome", "refused")
                .description("Fallback pool files refused (bad length or checksum); the previous pool was kept")
                .register(meters);
        this.recoveries = Counter.builder("unitas.resolver.recoveries")
                .description("Switches from the fallback pool back to DNS").register(meters);
        this.tickFailures = Counter.builder("unitas.resolver.tick.failures")
                .description("Ticks of the resolver's background loop that failed").register(meters);
        Gauge.builder("unitas.resolver.pool.addresses", this, r -> r.pool.addresses().size())
                .description("Addresses in the fallback pool").register(meters);
        for (EndpointState s : EndpointState.values()) {
            Gauge.builder("unitas.resolver.endpoints", this, r -> r.count(s)).tag("state", s.name().toLowerCase())
                    .description("Endpoints tracked by the resolver, by state").register(meters);
        }
        if (poolFile != null) {
            synchronized (lock) {
                reloadPool(now());
            }
        }
        this.dns = new DnsQuerier(b.dnsServer, b.queryTimeout, b.subnet, b.subnetPrefix);
        this.tickThread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-resolver-tick");
            t.setDaemon(true);
            return t;
        });
        long tick = b.tick.toNanos();
        tickThread.scheduleWithFixedDelay(this::tickSafely, tick, tick, TimeUnit.NANOSECONDS);
    }

    // ---- the API

    @Override
    public CompletableFuture<Resolution> resolve(ServiceName service) {
        Entry fresh = entries.get(service);
        if (fresh != null && now() < fresh.view.freshUntil()) { // the common case, without the lock
            return CompletableFuture.completedFuture(fresh.view.resolution());
        }
        synchronized (lock) {
            Entry e = entry(service);
            long now = now();
            View v = e.view;
            if (e.onPool) {
                if (now - e.lastAttempt >= triggers.retryEvery().toNanos()) {
                    query(e, now); // a query left unanswered is abandoned; its answer still counts if it comes
                }
                return CompletableFuture.completedFuture(v.resolution());
            }
            if (e.haveAnswer) {
                if (now < e.expiresAt) {
                    return CompletableFuture.completedFuture(v.resolution());
                }
                if (e.inflight == null) {
                    query(e, now);
                }
                Resolution r = v.resolution();
                return CompletableFuture.completedFuture(new Resolution(r.service(), r.endpoints(), Source.STALE));
            }
            CompletableFuture<Resolution> waiter = new CompletableFuture<>();
            e.waiters.add(waiter);
            if (e.inflight == null) {
                query(e, now);
            }
            return waiter;
        }
    }

    @Override
    public CompletableFuture<InetSocketAddress> pick(ServiceName service) {
        return pick(service, null);
    }

    @Override
    public CompletableFuture<InetSocketAddress> pick(ServiceName service, CharSequence key) {
        Entry fresh = entries.get(service);
        if (fresh != null && now() < fresh.view.freshUntil()) {
            try {
                return CompletableFuture.completedFuture(choose(service, key));
            } catch (NoEndpointException ex) {
                return CompletableFuture.failedFuture(ex);
            }
        }
        return resolve(service).thenApply(r -> choose(service, key));
    }

    private InetSocketAddress choose(ServiceName service, CharSequence key) {
        Entry e = entries.get(service);
        View v = e.view;
        int i = key == null ? v.picker().pick(ThreadLocalRandom.current()) : v.picker().pick(key);
        if (i < 0) {
            throw new NoEndpointException(service, e.onPool ? "DNS failing (" + e.lastProblem + ") and the fallback pool is empty"
                    : e.lastProblem);
        }
        return v.resolution().endpoints().get(i).address();
    }

    @Override
    public void report(InetSocketAddress address, boolean success) {
        Tracked known = tracked.get(address);
        if (known == null || success && known.health.state() == EndpointState.HEALTHY
                && known.health.consecutiveFailures() == 0) {
            return; // nothing to change: the common case of a call to a healthy endpoint takes no lock
        }
        synchronized (lock) {
            Tracked t = tracked.get(address);
            if (t == null) {
                return;
            }
            long now = now();
            EndpointHealth before = t.health;
            t.health = success ? policy.onSuccess(t.health, now) : policy.onFailure(t.health, now);
            if (t.health.state() != before.state()) {
                logState(address, before, t.health);
                rebuildAll(now);
            }
        }
    }

    @Override
    public AutoCloseable subscribe(ServiceName service, Consumer<Resolution> listener) {
        Entry e;
        synchronized (lock) {
            e = entry(service);
            e.listeners.add(listener);
            if (e.haveAnswer || e.onPool) {
                notify(listener, e.view.resolution());
            }
        }
        resolve(service).exceptionally(t -> null);
        return () -> e.listeners.remove(listener);
    }

    @Override
    public FallbackPool pool() {
        return pool;
    }

    @Override
    public void close() {
        tickThread.shutdownNow();
        dns.close();
        if (probe != null) {
            probe.close();
        }
    }

    // ---- DNS

    private void query(Entry e, long now) {
        e.lastAttempt = now;
        e.inflightSince = now;
        CompletableFuture<Answer> q = dns.resolve(e.service);
        e.inflight = q;
        q.whenComplete((a, t) -> onAnswer(e, q, a != null ? a : Answer.failed(Outcome.ERROR, String.valueOf(t))));
    }

    private void onAnswer(Entry e, CompletableFuture<Answer> q, Answer a) {
        synchronized (lock) {
            boolean current = e.inflight == q;
            if (current) {
                e.inflight = null;
            }
            long now = now();
            Counter.builder("unitas.resolver.resolutions").tag("outcome", a.outcome().name().toLowerCase())
                    .description("DNS resolutions by outcome").register(meters).increment();
            if (!current && a.outcome() != Outcome.ANSWER) {
                return; // an abandoned query's failure says nothing a newer query has not said since
            }
            if (a.outcome() == Outcome.ANSWER) {
                e.failuresInARow = 0;
                e.targets = a.targets();
                e.expiresAt = now + Math.min(a.ttlSeconds(), Integer.MAX_VALUE) * 1_000_000_000L;
                e.haveAnswer = true;
                e.lastProblem = "";
                if (e.onPool) {
                    e.onPool = false;
                    recoveries.increment();
                    LOG.info("{}: DNS answers again; leaving the fallback pool", e.service);
                }
                rebuild(e, now);
                completeWaiters(e);
                return;
            }
            e.lastProblem = a.outcome() + " " + a.detail();
            if (a.outcome() == Outcome.NXDOMAIN || a.outcome() == Outcome.SERVFAIL) {
                e.failuresInARow++;
                if (!e.onPool && e.failuresInARow >= triggers.failuresInARow() && havePool()) {
                    toPool(e, "failures", e.failuresInARow + " NXDOMAIN/SERVFAIL answers in a row", now);
                }
            } else if (a.outcome() == Outcome.TIMEOUT && !e.onPool && havePool()) {
                toPool(e, "slow", "no answer before the query timed out", now);
            }
            if (e.onPool || e.haveAnswer) {
                completeWaiters(e);
            } else {
                List<CompletableFuture<Resolution>> ws = new ArrayList<>(e.waiters);
                e.waiters.clear();
                NoEndpointException ex = new NoEndpointException(e.service, e.lastProblem);
                ws.forEach(w -> w.completeExceptionally(ex));
            }
        }
    }

    /**
     * Whether there is a pool to switch to: without one a trigger changes nothing, so a slow first answer is waited
     * for (until the query times out) and a cached one kept, instead of both turning into "no endpoint".
     */
    private boolean havePool() {
        return !pool.addresses().isEmpty();
    }

    private void toPool(Entry e, String trigger, String why, long now) {
        e.onPool = true;
        Counter.builder("unitas.resolver.fallbacks").tag("trigger", trigger)
                .description("Switches from DNS to the fallback pool, by trigger").register(meters).increment();
        LOG.warn("{}: {}; using the fallback pool of {} addresses", e.service, why, pool.addresses().size());
        rebuild(e, now);
        completeWaiters(e);
    }

    private void completeWaiters(Entry e) {
        if (e.waiters.isEmpty()) {
            return;
        }
        Resolution r = e.view.resolution();
        List<CompletableFuture<Resolution>> ws = new ArrayList<>(e.waiters);
        e.waiters.clear();
        ws.forEach(w -> w.complete(r));
    }

    // ---- the tick: probes, slow queries, TTLs, the pool file

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException | Error t) {
            tickFailures.increment();
            LOG.error("resolver tick failed; the next one runs as planned", t);
        }
    }

    /** One pass over everything time-driven; package-private so tests can run one without waiting for the thread. */
    void tick() {
        synchronized (lock) {
            long now = now();
            if (poolFile != null && now >= nextPoolCheck) {
                nextPoolCheck = now + poolCheckNanos;
                FileStamp s = FileStamp.of(poolFile);
                if (!s.equals(poolStamp)) {
                    reloadPool(now);
                }
            }
            for (Entry e : entries.values()) {
                if (e.inflight != null && !e.onPool && havePool()
                        && now - e.inflightSince >= triggers.slowerThan().toNanos()) {
                    toPool(e, "slow", "no answer within " + triggers.slowerThan().toMillis() + " ms", now);
                }
                boolean due = e.onPool ? now - e.lastAttempt >= triggers.retryEvery().toNanos()
                        : e.haveAnswer && now >= e.expiresAt && !e.listeners.isEmpty();
                if (due && (e.inflight == null || e.onPool)) {
                    query(e, now);
                }
            }
            boolean changed = false;
            for (Map.Entry<InetSocketAddress, Tracked> me : tracked.entrySet()) {
                Tracked t = me.getValue();
                EndpointHealth before = t.health;
                t.health = policy.onTime(t.health, now);
                if (t.health.state() != before.state()) {
                    logState(me.getKey(), before, t.health);
                    changed = true;
                }
                if (probe != null && !t.probing && now >= t.nextProbeAt) {
                    t.probing = true;
                    t.nextProbeAt = now + probeIntervalNanos;
                    long start = now();
                    InetSocketAddress address = me.getKey();
                    CompletableFuture<?> p;
                    try {
                        p = probe.probe(address);
                    } catch (RuntimeException ex) {
                        p = CompletableFuture.failedFuture(ex);
                    }
                    p.whenComplete((r, ex) -> onProbe(address, t, start, ex));
                }
            }
            if (changed) {
                rebuildAll(now);
            }
        }
    }

    /** How many endpoints' probes have not been recorded yet: a round has ended when this is 0. */
    int probesInFlight() {
        synchronized (lock) {
            int running = 0;
            for (Tracked t : tracked.values()) {
                running += t.probing ? 1 : 0;
            }
            return running;
        }
    }

    private void onProbe(InetSocketAddress address, Tracked t, long start, Throwable failure) {
        synchronized (lock) {
            long now = now();
            t.probing = false;
            EndpointHealth before = t.health;
            int weightBefore = t.rtt.weight(now, 1);
            if (failure == null) {
                t.health = policy.onSuccess(t.health, now);
                t.rtt.record(now, now - start);
            } else {
                t.health = policy.onFailure(t.health, now);
            }
            if (t.health.state() != before.state()) {
                logState(address, before, t.health);
            }
            if (t.health.state() != before.state() || t.rtt.weight(now, 1) != weightBefore) {
                rebuildAll(now);
            }
        }
    }

    private static void logState(InetSocketAddress address, EndpointHealth before, EndpointHealth after) {
        LOG.info("endpoint {}: {} -> {} ({} failures in a row)", address, before.state(), after.state(),
                after.consecutiveFailures());
    }

    private void reloadPool(long now) {
        poolStamp = FileStamp.of(poolFile);
        FallbackPool old = pool;
        try {
            FallbackPool p = FallbackPool.decode(poolFile.getFileName().toString(), Files.readAllBytes(poolFile));
            pool = p;
            poolLoaded.increment();
            LOG.info("{}: loaded a fallback pool of {} addresses", poolFile, p.addresses().size());
            rebuildAll(now);
        } catch (IOException | IllegalArgumentException e) {
            poolRefused.increment();
            String why = e instanceof IOException ? "cannot read it (" + e + ")" : e.getMessage();
            LOG.warn("{}: {}; keeping the previous pool of {} addresses", poolFile, why, old.addresses().size());
        }
    }

    // ---- views

    private Entry entry(ServiceName service) {
        return entries.computeIfAbsent(service, s -> {
            Entry e = new Entry(s);
            e.view = new View(new Resolution(s, List.of(), Source.DNS), EndpointPicker.of(List.of()), Long.MIN_VALUE);
            return e;
        });
    }

    private void rebuildAll(long now) {
        for (Entry e : entries.values()) {
            if (e.haveAnswer || e.onPool) {
                rebuild(e, now);
            }
        }
        Set<InetSocketAddress> used = new HashSet<>();
        for (Entry e : entries.values()) {
            e.view.resolution().endpoints().forEach(r -> used.add(r.address()));
        }
        tracked.keySet().retainAll(used);
    }

    private void rebuild(Entry e, long now) {
        List<Target> targets;
        if (e.onPool) {
            targets = new ArrayList<>();
            for (InetAddress a : pool.addresses()) {
                targets.add(new Target(new InetSocketAddress(a, e.service.port()), 0, 1));
            }
        } else {
            targets = e.targets;
        }
        List<ResolvedEndpoint> endpoints = new ArrayList<>(targets.size());
        List<EndpointPicker.Candidate> candidates = new ArrayList<>(targets.size());
        for (Target t : targets) {
            Tracked tr = tracked.computeIfAbsent(t.address(), a -> new Tracked(now, rttWindow));
            ResolvedEndpoint r = new ResolvedEndpoint(t.address(), t.priority(), t.weight(), tr.rtt.weight(now, 1),
                    tr.health.state());
            endpoints.add(r);
            candidates.add(new EndpointPicker.Candidate(r.priority(), r.effectiveWeight(), r.state()));
        }
        Resolution res = new Resolution(e.service, endpoints, e.onPool ? Source.POOL : Source.DNS);
        Resolution old = e.view.resolution();
        e.view = new View(res, EndpointPicker.of(candidates), e.onPool ? Long.MIN_VALUE : e.expiresAt);
        if (!res.equals(old)) {
            for (Consumer<Resolution> l : e.listeners) {
                notify(l, res);
            }
        }
    }

    /** Calls a listener on the tick thread, outside the lock; after close, nobody is told anything. */
    private void notify(Consumer<Resolution> listener, Resolution r) {
        try {
            tickThread.execute(() -> listener.accept(r));
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the resolver was closed: a late DNS answer changes nothing anyone listens to
        }
    }

    private int count(EndpointState s) {
        int n = 0;
        for (Tracked t : tracked.values()) {
            n += t.health.state() == s ? 1 : 0;
        }
        return n;
    }

    private long now() {
        Instant i = clock.instant();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /** What picks read: one resolution, its picker, and until when it may be served without asking (DNS only). */
    private record View(Resolution resolution, EndpointPicker picker, long freshUntil) {}

    /** One service's state; guarded by the lock except {@code view}. */
    private static final class Entry {
        final ServiceName service;
        final List<CompletableFuture<Resolution>> waiters = new ArrayList<>();
        final List<Consumer<Resolution>> listeners = new CopyOnWriteArrayList<>();
        volatile View view;
        List<Target> targets = List.of();
        boolean haveAnswer;
        boolean onPool;
        long expiresAt;
        int failuresInARow;
        CompletableFuture<Answer> inflight;
        long inflightSince;
        long lastAttempt = Long.MIN_VALUE / 2;
        String lastProblem = "no answer yet";

        Entry(ServiceName service) {
            this.service = service;
        }
    }

    /** One endpoint's health and RTT window; guarded by the lock except {@code health}'s reads by gauges. */
    private static final class Tracked {
        volatile EndpointHealth health;
        final RttWindow rtt;
        boolean probing;
        long nextProbeAt;

        Tracked(long now, java.time.Duration window) {
            this.health = EndpointHealth.initial(now);
            this.rtt = RttWindow.of(window, 64);
            this.nextProbeAt = now;
        }
    }
}
