package io.unitas.playground;

import com.fasterxml.jackson.databind.node.MissingNode;
import io.unitas.core.Region;
import io.unitas.playground.store.Order;
import io.unitas.data.reconcile.Compensation;
import io.unitas.data.reconcile.Reconciliations;
import io.unitas.data.store.StoreResult;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

/** One run of a drill: the script on the calling thread, the virtual users on a pool, the counting at the end. */
final class DrillRun {

    private static final int ATTEMPTS = 4;
    private static final long FIRST_USER = 100;
    /**
     * Visits of one virtual user that may run at once (an open loop, bounded): enough that a slow start or a faulted
     * region's hanging answers do not hold up the visits due next.
     */
    private static final int VISITS_IN_FLIGHT_PER_USER = 64;

    /**
     * One HTTP request as a client saw it: of a visit due at {@code dueMillis}, sent at {@code sentMillis}, answered
     * at {@code atMillis}; {@code checkout} for a checkout of a new key.
     */
    private record Attempt(long dueMillis, long sentMillis, long atMillis, Region home, boolean checkout,
                           String servedBy, int status) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** 5xx or no answer at all. */
        boolean failed() {
            return status == 0 || status >= 500;
        }
    }

    /** A checkout whose response the client lost: it will send the same key again when due. */
    private record LostResponse(long dueMillis, String user, String key, String payload) {}

    private final Playground p;
    private final Scenario scenario;
    private final boolean naive;
    private final long durationMillis;
    private final int users;
    private final long visitEveryMillis;
    private final long seed;
    private final Drill.Builder settings;
    private final Region faulted;
    private final LongSupplier ticker;
    /** The drill's clock reads 0 when the load starts, so both modes' visits and fault fall at the same times. */
    private long startNanos;
    private final ShopClient client = new ShopClient(Duration.ofSeconds(5));
    private final NaiveDns dns;
    /** Unitas clients' entries: unitas dns and the resolver SDK (null in naive mode). */
    private final EntryResolver entries;

    private final ConcurrentLinkedQueue<Attempt> attempts = new ConcurrentLinkedQueue<>();
    /** How late each visit started after it was due, in milliseconds: whether the load was offered as planned. */
    private final ConcurrentLinkedQueue<Long> startedLate = new ConcurrentLinkedQueue<>();
    /** Checkouts whose response was "lost", by when their client sends them again. */
    private final PriorityBlockingQueue<LostResponse> lost =
            new PriorityBlockingQueue<>(64, Comparator.comparingLong(LostResponse::dueMillis));
    private final Map<String, Region> homes = new ConcurrentHashMap<>();
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    /** Recently registered users by home region, the returning users a visit draws from. */
    private final Map<Region, List<String>> recent = new ConcurrentHashMap<>();
    private final Set<String> cartItems = ConcurrentHashMap.newKeySet();
    private final Set<String> orderingUsers = ConcurrentHashMap.newKeySet();
    // A fresh range of user ids per run, so drills on one playground do not share users.
    private final AtomicLong nextUser = new AtomicLong(FIRST_USER + 1000 * ThreadLocalRandom.current().nextLong(1_000_000));
    private final AtomicLong accountNotFound = new AtomicLong();
    private final AtomicLong sessionsLost = new AtomicLong();
    /** Users told to come back later (a 503 with Retry-After), until when on the drill's clock. */
    private final Map<String, Long> backOffUntil = new ConcurrentHashMap<>();
    private volatile boolean stop;
    private Reconciliations.Report reconciledBefore;
    private volatile long faultAt = -1;
    private volatile long injectedAt = -1;
    private volatile long recoveryAt = -1;
    private ExampleCalls exampleCalls = ExampleCalls.none();

    private DrillRun(Drill.Builder b, Playground p) {
        this.p = p;
        this.settings = b;
        this.ticker = b.ticker;
        this.entries = b.naive ? null : EntryResolver.warm(p, Duration.ofSeconds(10));
        this.scenario = b.scenario;
        this.naive = b.naive;
        this.durationMillis = b.duration.toMillis();
        this.users = b.users;
        this.visitEveryMillis = b.visitEvery.toMillis();
        this.seed = b.seed;
        this.faulted = p.regions().get(0);
        this.dns = new NaiveDns(p.regions(), faulted, durationMillis / 20, durationMillis / 20);
    }

    static DrillResult run(Drill.Builder b, Playground p) {
        ShopMode expected = b.naive ? ShopMode.NAIVE : ShopMode.UNITAS;
        if (p.mode() != expected) {
            throw new IllegalArgumentException("playground runs " + p.mode() + " shops (expected: " + expected
                                               + " for a " + (b.naive ? "naive" : "unitas") + " drill)");
        }
        return new DrillRun(b, p).run();
    }

    private DrillResult run() {
        ExecutorService streams = Executors.newFixedThreadPool(users, daemon("unitas-drill-user"));
        ExecutorService visits = visitEveryMillis == 0 ? null
                : new ThreadPoolExecutor(0, users * VISITS_IN_FLIGHT_PER_USER, 1, TimeUnit.SECONDS,
                                         new SynchronousQueue<>(), daemon("unitas-drill-visit"),
                                         new ThreadPoolExecutor.CallerRunsPolicy());
        DrillFailover failover = naive || !scenario.movesTraffic() ? null : new DrillFailover(p, faulted, Duration.ofMillis(durationMillis));
        if (failover != null) {
            failover.enable();
        }
        reconciledBefore = p.reconciliation();
        ExampleCalls exampleBefore = p.exampleCalls();
        startNanos = ticker.getAsLong();
        phase(DrillPhase.LOAD);
        for (int i = 0; i < users; i++) {
            int virtualUser = i;
            streams.execute(() -> virtualUser(virtualUser, visits));
        }
        ExampleLoad example = exampleBefore.ran() ? ExampleLoad.start(p, () -> stop) : null;
        try {
            script();
        } finally {
            stop = true;
            streams.shutdown();
            awaitQuietly(streams);
            if (visits != null) {
                visits.shutdown();
                awaitQuietly(visits);
            }
            if (entries != null) {
                entries.close();
                say(entries.summary());
            }
            if (example != null) {
                example.await();
            }
        }
        exampleCalls = p.exampleCalls().since(exampleBefore);
        say(lateness());
        phase(DrillPhase.REPLICATION);
        say("load stopped; waiting for replication to catch up");
        awaitReplication(Duration.ofSeconds(20));
        DrillResult result = count(failover == null ? -1 : failover.rpoMillis());
        if (failover != null) {
            String problem = failover.restore(Duration.ofSeconds(30));
            say(problem.isEmpty() ? "failover policy removed; " + faulted + "'s units are home" : problem);
        }
        phase(DrillPhase.DONE);
        return result;
    }

    private void phase(DrillPhase phase) {
        settings.phases.accept(phase, now());
    }

    private void script() {
        if (scenario.backlogFirst()) {
            sleepUntil(durationMillis * 2 / 10);
            Scenario.pauseOutgoing(p, faulted);
            phase(DrillPhase.BACKLOG);
            say("replication from " + faulted + " paused (backlog builds)");
        }
        sleepUntil(faultDue());
        faultAt = now();
        phase(DrillPhase.FAULT);
        scenario.inject(p, faulted);
        injectedAt = now();
        if (scenario.movesTraffic()) {  // the operator leaves DNS alone when the region's users are fine
            dns.faultAt(faultAt);
        }
        say("fault injected: " + scenario.description());
        sleepUntil(recoveryDue());
        recoveryAt = now();
        phase(DrillPhase.RECOVERED);
        scenario.recover(p, faulted);
        dns.recoveredAt(recoveryAt);
        say("fault recovered");
        sleepUntil(durationMillis);
    }

    // ---- the workload

    /**
     * A virtual user: a visit every {@code visitEvery} on the drill's clock, each on a thread of its own (an open
     * loop: a visit that hangs on a faulted region does not hold up the next, as one shopper's stuck page does not
     * stop another's), or one after another as fast as answers come when it is 0. At most
     * {@link #VISITS_IN_FLIGHT_PER_USER} visits run at once per virtual user; beyond that the next waits its turn.
     * A visit that could not start when due starts late, and so do the ones due meanwhile: each mode makes every
     * visit of the plan, at the plan's times as far as the machine allows.
     */
    private void virtualUser(int index, ExecutorService visits) {
        long first = VisitPlan.firstDue(seed, index, visitEveryMillis); // spread the users
        for (long n = 0; !stop; n++) {
            long due = visits == null ? now() : first + n * visitEveryMillis;
            sleepUntil(due);
            if (stop) {
                return;
            }
            VisitPlan plan = VisitPlan.draw(seed, index, n, p.regions(), durationMillis);
            if (visits == null) {
                visit(due, plan);
            } else {
                visits.execute(() -> visit(due, plan));
            }
        }
    }

    /**
     * One visit: the lost responses now due are sent again; a user of a drawn home region registers or returns, logs
     * in, adds, checks out.
     */
    private void visit(long due, VisitPlan plan) {
        startedLate.add(now() - due);
        retryLostResponses();
        List<String> returningUsers = recent.getOrDefault(plan.home(), List.of());
        String user;
        if (!plan.returning() || returningUsers.isEmpty()) {
            user = register(plan.home(), due);
        } else {
            user = returningUser(returningUsers, new SplittableRandom(plan.pick()));
        }
        if (user == null) {
            return;
        }
        String token = login(user, due);
        if (token == null) {
            return;
        }
        String item = plan.item();
        ShopClient.Reply add = call(user, due, false, base -> client.addToCart(base, user, token, item, 1));
        if (add.ok()) {
            cartItems.add(user + "|" + item);
        }
        countLostSession(add);
        if (backingOff(user)) {
            return; // told to come back later: this user's checkout waits
        }
        String key = UUID.randomUUID().toString();
        String payload = "{\"items\":{\"" + item + "\":1}}";
        orderingUsers.add(user);
        ShopClient.Reply checkout = call(user, due, true, base -> client.checkout(base, user, token, key, payload));
        countLostSession(checkout);
        if (checkout.ok() && plan.loseResponse()) {
            lost.add(new LostResponse(due + plan.resendAfter(), user, key, payload));
        }
    }

    /**
     * One of {@code candidates} (recently registered users of one home) that is not backing off (a few draws), or
     * null: each user is a client of their own, and one told to come back later does not hold up the others.
     */
    private String returningUser(List<String> candidates, SplittableRandom random) {
        for (int draw = 0; draw < 4; draw++) {
            String user;
            synchronized (candidates) {
                user = candidates.get(random.nextInt(candidates.size()));
            }
            if (!backingOff(user)) {
                return user;
            }
        }
        return null;
    }

    private boolean backingOff(String user) {
        Long until = backOffUntil.get(user);
        return until != null && until > now();
    }

    private String register(Region home, long due) {
        String user = p.userId(home, nextUser.getAndIncrement());
        homes.put(user, home);
        ShopClient.Reply r = call(user, due, false, base -> client.register(base, user));
        if (!r.ok()) {
            return null;
        }
        registered.add(user);
        List<String> users = recent.computeIfAbsent(home, h -> Collections.synchronizedList(new ArrayList<>()));
        synchronized (users) {
            users.add(user);
            if (users.size() > 100) {
                users.remove(0);
            }
        }
        return user;
    }

    /** A session token, or null; counts "account not found" answered for an acknowledged registration. */
    private String login(String user, long due) {
        ShopClient.Reply r = call(user, due, false, base -> client.login(base, user));
        if (r.status() == 404 && r.problem().equals("account-not-found") && registered.contains(user)) {
            accountNotFound.incrementAndGet();
        }
        return r.ok() ? r.body().path("token").asText() : null;
    }

    private void countLostSession(ShopClient.Reply r) {
        if (r.status() == 401) {
            sessionsLost.incrementAndGet();
        }
    }

    /**
     * The checkouts whose responses were "lost" and are due are sent again with the same key (logging in again if
     * needed); a user backing off keeps theirs until they come back.
     */
    private void retryLostResponses() {
        long now = now();
        for (LostResponse l = lost.peek(); l != null && l.dueMillis() <= now && !stop; l = lost.peek()) {
            if (!lost.remove(l)) {
                continue; // another visit took it
            }
            if (backingOff(l.user())) {
                lost.add(new LostResponse(backOffUntil.getOrDefault(l.user(), now), l.user(), l.key(), l.payload()));
                continue;
            }
            LostResponse resend = l;
            String token = login(resend.user(), resend.dueMillis());
            if (token != null) {
                call(resend.user(), resend.dueMillis(), false,
                     base -> client.checkout(base, resend.user(), token, resend.key(), resend.payload()));
            }
        }
    }

    /**
     * Sends one request with up to {@link #ATTEMPTS} attempts on a failure (5xx, no answer) or 409; a 503 with
     * Retry-After ends it at once, and its user backs off that long (the virtual user turns to others). Unitas
     * clients enter at the gateway the resolver SDK picks from unitas dns's SRV answer (their home region's first)
     * and report whether it answered, so a gateway that stops answering loses them within a few calls, tried at
     * once one after another; naive clients call a shop of the region the naive DNS answers with.
     */
    private ShopClient.Reply call(String user, long due, boolean checkout,
                                  Function<URI, ShopClient.Reply> request) {
        Region home = homes.get(user);
        ShopClient.Reply r = null;
        for (int attempt = 0; attempt < ATTEMPTS && !stop; attempt++) {
            URI base;
            if (naive) {
                List<URI> shops = p.shops(dns.resolve(home, now()));
                base = shops.get(ThreadLocalRandom.current().nextInt(shops.size()));
            } else {
                base = entries.entry(home, user);
            }
            long sent = now();
            r = base == null ? new ShopClient.Reply(0, MissingNode.getInstance(), "", "no-entry") : request.apply(base);
            attempts.add(new Attempt(due, sent, now(), home, checkout, r.servedBy(), r.status()));
            if (!naive) {
                entries.report(home, base, r.status() != 0);
            }
            if (!r.failed() && r.status() != 409) {
                return r;
            }
            if (r.status() == 503 && r.retryAfterSeconds() > 0) {
                // A real client honours Retry-After: this user comes back then, instead of asking again at once.
                backOffUntil.put(user, now() + TimeUnit.SECONDS.toMillis(r.retryAfterSeconds()));
                return r;
            }
            if (!naive && r.status() == 0) {
                // No answer at all: the SDK heard of it; the next attempt goes at once, as a client tries the next
                // address of a name. Pausing here kept every virtual user asleep while a region was down.
                continue;
            }
            pause(150L * (attempt + 1));
        }
        return r == null ? new ShopClient.Reply(0, MissingNode.getInstance(), "", "stopped") : r;
    }

    // ---- counting

    private DrillResult count(long rpoMillis) {
        long requests = attempts.size();
        long failedInFault = attempts.stream().filter(a -> inFault(a) && a.failed()).count();
        long failedAfter = attempts.stream().filter(a -> a.dueMillis() >= recoveryDue() && a.failed()).count();
        long failover = attempts.stream()
                                .filter(a -> a.atMillis() >= faultAt && a.home().equals(faulted))
                                .filter(a -> a.status() >= 200 && a.status() < 300)
                                .filter(a -> !a.servedBy().isEmpty() && !a.servedBy().equals(faulted.id()))
                                .mapToLong(a -> a.atMillis() - faultAt).min().orElse(-1);
        long servedInFault = attempts.stream().filter(a -> inFault(a) && a.ok()).count();
        long faultedServedInFault = attempts.stream().filter(a -> inFault(a) && a.ok() && a.home().equals(faulted))
                                            .count();
        // New checkouts (not the resent keys of lost responses, which a replica may replay) sent once the fault is
        // in place (one under way while it was injected may still have landed).
        long writesBack = attempts.stream()
                                  .filter(a -> a.checkout() && a.ok() && a.home().equals(faulted))
                                  .filter(a -> a.sentMillis() >= injectedAt && a.atMillis() < recoveryAt)
                                  .mapToLong(a -> a.atMillis() - faultAt).min().orElse(-1);
        return new DrillResult(scenario, naive, durationMillis, faultAt, recoveryAt, requests, accountNotFound.get(),
                               duplicateOrders(), lostCartItems(), sessionsLost.get(), failedInFault,
                               scenario.movesTraffic() ? failover : -1, timeline(),
                               new DrillResult.FaultWindow(servedInFault, faultedServedInFault,
                                                           scenario.movesTraffic() ? writesBack : -1, rpoMillis,
                                                           failedAfter),
                               reconciled(), exampleCalls);
    }

    /**
     * Idempotency keys with more than one order that no region's store holds a compensation (refund) of, over every
     * region's store: uncompensated duplicate orders.
     */
    private long duplicateOrders() {
        long duplicates = 0;
        for (String user : orderingUsers) {
            Map<String, Set<String>> ordersByKey = new HashMap<>();
            Set<String> refunded = new HashSet<>();
            for (Region r : p.regions()) {
                StoreResult<List<Order>> orders = p.store(r).orders(user);
                if (orders.isOk()) {
                    orders.value().forEach(o -> ordersByKey.computeIfAbsent(o.idempotencyKey(), k -> new HashSet<>())
                                                           .add(o.orderId()));
                }
                StoreResult<List<Compensation>> compensations = p.store(r).compensations(user);
                if (compensations.isOk()) {
                    compensations.value().forEach(c -> refunded.add(c.duplicateId()));
                }
            }
            duplicates += ordersByKey.values().stream()
                                     .filter(ids -> ids.stream().filter(id -> !refunded.contains(id)).count() > 1)
                                     .count();
        }
        return duplicates;
    }

    /** What reconciliation did since this drill started. */
    private DrillResult.Reconciled reconciled() {
        Reconciliations.Report now = p.reconciliation();
        return new DrillResult.Reconciled(now.duplicatesDetected() - reconciledBefore.duplicatesDetected(),
                                          now.compensated() - reconciledBefore.compensated(),
                                          now.conflicts() - reconciledBefore.conflicts(),
                                          now.merged() - reconciledBefore.merged());
    }

    /** Acknowledged cart items missing from the user's cart in the home region's store. */
    private long lostCartItems() {
        long lost = 0;
        for (String entry : cartItems) {
            int bar = entry.indexOf('|');
            String user = entry.substring(0, bar);
            var cart = p.store(homes.get(user)).cart(user);
            if (!cart.isOk() || cart.value().quantity(entry.substring(bar + 1)) == 0) {
                lost++;
            }
        }
        return lost;
    }

    /**
     * Whether {@code a} belongs to a visit (or a resent checkout) due between the script's fault and recovery: the
     * same requests in either mode, however late each setup answered them, so the window's counts compare what
     * each made of the same offered load.
     */
    private boolean inFault(Attempt a) {
        return a.dueMillis() >= faultDue() && a.dueMillis() < recoveryDue();
    }

    /** When the script injects the fault: at 30% of the drill. */
    private long faultDue() {
        return durationMillis * 3 / 10;
    }

    /** When the script recovers it: at 70%. */
    private long recoveryDue() {
        return durationMillis * 7 / 10;
    }

    private List<DrillResult.Second> timeline() {
        Map<Long, Map<String, Long>> served = new TreeMap<>();
        Map<Long, Long> errors = new HashMap<>();
        for (long s = 0; s <= durationMillis / 1000; s++) {
            served.put(s, new TreeMap<>());
        }
        for (Attempt a : attempts) {
            long s = Math.min(a.atMillis() / 1000, durationMillis / 1000);
            if (a.status() == 0 || a.status() >= 500) {
                errors.merge(s, 1L, Long::sum);
            } else {
                served.get(s).merge(a.servedBy(), 1L, Long::sum);
            }
        }
        return served.entrySet().stream()
                     .map(e -> new DrillResult.Second(e.getKey(), e.getValue(), errors.getOrDefault(e.getKey(), 0L)))
                     .toList();
    }

    /** How late the visits started: a comparison of the modes holds as far as both offered their visits on time. */
    private String lateness() {
        long[] late = startedLate.stream().mapToLong(Long::longValue).sorted().toArray();
        if (late.length == 0) {
            return "no visit started";
        }
        return String.format(Locale.ROOT, "%d visits, started after they were due by: median %d ms, p99 %d ms, "
                                          + "at most %d ms", late.length, late[late.length / 2],
                             late[(int) (late.length * 0.99)], late[late.length - 1]);
    }

    private void awaitReplication(Duration timeout) {
        long end = now() + timeout.toMillis();
        while (now() < end) {
            if (p.replicator().caughtUp()) {
                return;
            }
            pause(50);
        }
        say("replication did not catch up within " + timeout.toSeconds() + " s; counting anyway; behind: "
            + p.replicator().links().stream().filter(l -> !l.caughtUp())
               .map(l -> l.from() + "->" + l.to() + " " + l.pendingChanges() + " pending"
                         + (l.problem().isEmpty() ? "" : " (" + l.problem() + ")"))
               .collect(java.util.stream.Collectors.joining(", ")));
    }

    // ---- time

    private long now() {
        return TimeUnit.NANOSECONDS.toMillis(ticker.getAsLong() - startNanos);
    }

    /** Sleeps until the drill's clock reads {@code millis} (which need not run at the pace of the system's). */
    private void sleepUntil(long millis) {
        for (long wait = millis - now(); wait > 0 && !Thread.currentThread().isInterrupted(); wait = millis - now()) {
            pause(wait);
        }
    }

    private void say(String line) {
        settings.progress.accept(String.format(Locale.ROOT, "%6.1fs %s %s: %s", now() / 1000.0, scenario.id(),
                                               naive ? "naive" : "unitas", line));
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static void awaitQuietly(ExecutorService pool) {
        try {
            if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
