package io.unitas.playground;

import io.unitas.control.client.ControlClient;
import io.unitas.core.Region;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A drill against a {@link ProcessDeployment}: virtual users deposit into their wallets (each deposit with a key of
 * its own) and read them, while a {@link Scenario}'s fault hits the first region from 30% of the drill to 70%:
 * {@code region-down} is {@code kill -9} of every process of the region, {@code db-readonly} its PostgreSQL server
 * turned read-only while every process stays up, {@code control-plane-down} {@code kill -9} of the control plane,
 * {@code dns-down} {@code kill -9} of every region's DNS server (unitas users resolve their gateway through it with the
 * resolver SDK, keep its answers and then use the fallback pool their region's wallets keep; naive users keep their
 * GeoDNS answer for {@link #NAIVE_TTL}, as in every scenario, then cannot resolve until it answers again),
 * {@code partition} the links between it and the second region cut ({@link ProcessDeployment#partition}: they hang),
 * {@code slow-region} {@link #SLOW_LATENCY} each way on every link of the region ({@link ProcessDeployment#slow}).
 *
 * <p>The load is an open loop drawn from the seed, so a unitas deployment and a naive one are offered the same
 * requests at the same times: each virtual user starts a visit (a deposit, then a read) every {@code visitEvery}, each
 * on a thread of its own; 30% of acknowledged deposits "lose their answer" and are sent again with the same key 1 s
 * to 1 s + duration/5 later (again after every failure, until the drill ends). With unitas, users enter at their
 * region's gateway and at the next region's when it does not answer; naive, at their region's wallet instances
 * directly, and at the next region's only once its liveness endpoint stops answering ({@link GeoDns}). The phases
 * count the requests of the visits and resends due in them. Once the region is back, the invariants are counted in
 * every region's database: no key charged twice (net of refunds), no acknowledged deposit lost, no answer naming
 * another user, every balance the sum of its ledger, and no wallet answered "not found" after a deposit of it was
 * acknowledged.
 *
 * <p>On unitas's side of {@code region-down} and {@code db-readonly} (with replication) the drill sets the control
 * plane's failover policy for the faulted region before the load ({@link DrillFailover}, as the in-process drill
 * does), so the region's unit is switched over or promoted to the next region and its users are served there; once
 * the load has ended it reads the move's RPO, removes the policy and moves the unit home.
 */
public final class ProcessDrill {

    private static final Pattern USER = Pattern.compile("\"user\":\"([^\"]*)\"");
    /** The region that served a wallet's answer (the first {@code region} of its body, the wallet's own). */
    private static final Pattern SERVED_BY = Pattern.compile("\"region\":\"([^\"]*)\"");
    /** The drills whose fault the unitas side answers by moving the faulted region's unit (with replication). */
    private static final Set<Scenario> MOVES_UNITS = Set.of(Scenario.REGION_DOWN, Scenario.DB_READONLY);
    /** How often the naive side's health check probes each region's wallets, and its fall and rise. */
    static final Duration PROBE_EVERY = Duration.ofSeconds(1);
    static final int FALL = 2;
    static final int RISE = 2;
    /**
     * Naive: how long a region's clients keep their GeoDNS answer, the TTL the unitas DNS servers give at full health
     * (the base of their TTL formula), so both sides' caches last alike: after the GeoDNS switch a client follows
     * once its answer expires, and in dns-down it keeps resolving until then.
     */
    static final Duration NAIVE_TTL = Duration.ofSeconds(5);

    /** What {@code slow-region} adds to every link of the faulted region, each way. */
    static final Duration SLOW_LATENCY = Duration.ofMillis(300);
    /** At most this many visits of one virtual user in flight; beyond it the next waits its turn. */
    private static final int IN_FLIGHT = 64;

    private final Builder b;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                                              .connectTimeout(Duration.ofSeconds(1)).build();

    private ProcessDrill(Builder b) {
        this.b = b;
    }

    /** A builder; the scenario is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The scenarios a drill runs on processes so far. */
    public static List<Scenario> scenarios() {
        return List.of(Scenario.REGION_DOWN, Scenario.DB_READONLY, Scenario.CONTROL_PLANE_DOWN,
                       Scenario.REPLICATION_BACKLOG, Scenario.DNS_DOWN, Scenario.PARTITION, Scenario.SLOW_REGION);
    }

    /** Runs the drill; the deployment is left running, the faulted region back. */
    public ProcessDrillResult run(ProcessDeployment d) {
        Region faulted = d.regions().get(0);
        List<String> notes = new ArrayList<>();
        String mode = d.naive() ? "naive" : "unitas";
        Consumer<String> note = line -> {
            notes.add(line);
            b.progress.accept(mode + ": " + line);
        };
        // before the clock starts: a cold client's first answer on a loaded machine is not the drill's to count
        EntryResolver resolver = b.scenario == Scenario.DNS_DOWN && !d.naive() ? EntryResolver.warm(
                new EntryResolver(d.regions(), d::dns, d::clientNetwork, d::fallbackPool, r -> d.gateway(r).getPort()),
                Duration.ofSeconds(30)) : null;
        long start = b.ticker.getAsLong();
        long total = b.duration.toNanos();
        Load load = new Load(d, faulted, start, total, resolver);
        DrillFailover failover = failover(d, faulted);
        if (failover != null) {
            failover.enable();
            note.accept(String.format("%.1f s: failover policy set for %s's unit (%s)", seconds(start), faulted.id(),
                                      failover.describe()));
        }
        Thread probe = null;
        if (d.naive()) {
            probe = new Thread(() -> load.probe(start + total), "drill-geodns");
            probe.setDaemon(true);
            probe.start();
        }
        List<Thread> users = new ArrayList<>();
        for (int i = 0; i < b.users; i++) {
            Region home = d.regions().get(i % d.regions().size());
            String user = d.userId(home, 100 + i);
            int index = i;
            Thread t = new Thread(() -> load.user(index, user, home), "drill-user-" + user);
            t.start();
            users.add(t);
        }
        pauseUntil(start + total * 3 / 10);
        load.faultAt = b.ticker.getAsLong();
        inject(d, faulted, note, start);
        pauseUntil(start + total * 7 / 10);
        recover(d, faulted, note, start);
        note.accept(String.format("%.1f s: %s: recovered", seconds(start), b.scenario.id()));
        users.forEach(ProcessDrill::join);
        load.awaitQuiet();
        if (probe != null) {
            join(probe);
        }
        d.awaitReady(Duration.ofMinutes(3));
        long rpo = -1;
        if (failover != null) {
            // read before the move home, which is the control plane's last switchover then
            rpo = failover.rpoMillis();
            String problem = failover.restore(Duration.ofSeconds(30));
            note.accept(String.format("%.1f s: %s", seconds(start), problem.isEmpty()
                    ? "failover policy removed; " + faulted.id() + "'s unit is home" : problem));
        }
        long copiesOff = -1;
        if (d.kafka().isPresent()) {
            copiesOff = load.awaitCopies(b.ticker.getAsLong() + TimeUnit.SECONDS.toNanos(60));
            note.accept(String.format("%.1f s: %d wallet copies differ from their home's", seconds(start), copiesOff));
        }
        if (resolver != null) {
            note.accept(resolver.summary());
            resolver.close();
        }
        return load.result(mode, notes, copiesOff, failover == null ? -1 : load.failoverMillis(), rpo);
    }

    /**
     * The control plane's failover policy for the faulted region ({@link DrillFailover}, as the in-process drill sets
     * it), on unitas's side of a drill that moves units, with replication (a unit moved without its data would start
     * its users' wallets from nothing); null otherwise.
     */
    private DrillFailover failover(ProcessDeployment d, Region faulted) {
        if (d.naive() || !MOVES_UNITS.contains(b.scenario) || d.kafka().isEmpty()) {
            return null;
        }
        Path token = d.deployDir().resolve("tokens/admin.token");
        try {
            return new DrillFailover(ControlClient.of(d.control(), Files.readString(token).strip()), faulted,
                                     b.duration);
        } catch (IOException e) {
            throw new UncheckedIOException("drill: cannot read " + token + ": " + e.getMessage(), e);
        }
    }

    private void inject(ProcessDeployment d, Region faulted, Consumer<String> note, long start) {
        switch (b.scenario) {
            case DB_READONLY -> {
                note.accept(String.format("%.1f s: %s: %s's PostgreSQL turns read-only; its processes stay up",
                                          seconds(start), b.scenario.id(), faulted.id()));
                d.databaseReadOnly(faulted, true);
            }
            case REPLICATION_BACKLOG -> {
                if (d.kafka().isEmpty()) {
                    note.accept(String.format("%.1f s: %s: no replication in this deployment; nothing to pause",
                                              seconds(start), b.scenario.id()));
                } else {
                    note.accept(String.format("%.1f s: %s: SIGSTOP to the Kafka broker: every region's shipping and"
                                              + " receiving hangs, the outboxes keep what is written",
                                              seconds(start), b.scenario.id()));
                    d.pauseReplication(true);
                }
            }
            case DNS_DOWN -> {
                if (d.naive()) {
                    note.accept(String.format("%.1f s: %s: the GeoDNS server stops answering; clients keep their"
                                              + " answer for its TTL (%d s), then cannot resolve", seconds(start),
                                              b.scenario.id(), NAIVE_TTL.toSeconds()));
                } else {
                    note.accept(String.format("%.1f s: %s: kill -9 of every region's DNS server; clients keep their"
                                              + " answers, then use the fallback pool", seconds(start),
                                              b.scenario.id()));
                    d.killDns();
                }
            }
            case CONTROL_PLANE_DOWN -> {
                if (d.naive()) {
                    note.accept(String.format("%.1f s: %s: the naive setup has no control plane; nothing to kill",
                                              seconds(start), b.scenario.id()));
                } else {
                    note.accept(String.format("%.1f s: %s: kill -9 of the control plane; gateways, health agents and"
                                              + " wallets keep their last state", seconds(start), b.scenario.id()));
                    d.killControlPlane();
                }
            }
            case PARTITION -> {
                Region other = d.regions().get(1);
                int n = d.partition(faulted, other, true);
                note.accept(String.format("%.1f s: %s: %s cut from %s: %s", seconds(start), b.scenario.id(),
                                          faulted.id(), other.id(), n == 0 ? "the naive setup has no link between"
                                          + " regions to cut" : n + " links hang, both ways"));
            }
            case SLOW_REGION -> {
                int n = d.slow(faulted, SLOW_LATENCY);
                note.accept(String.format("%.1f s: %s: %s", seconds(start), b.scenario.id(), n == 0
                        ? "the naive setup has no link between regions to slow"
                        : n + " links of " + faulted.id() + " carry " + SLOW_LATENCY.toMillis() + " ms each way"));
            }
            default -> {
                note.accept(String.format("%.1f s: %s: kill -9 of every process of %s", seconds(start),
                                          b.scenario.id(), faulted.id()));
                d.killRegion(faulted);
            }
        }
    }

    private void recover(ProcessDeployment d, Region faulted, Consumer<String> note, long start) {
        switch (b.scenario) {
            case DB_READONLY -> {
                note.accept(String.format("%.1f s: %s: %s's PostgreSQL takes writes again", seconds(start),
                                          b.scenario.id(), faulted.id()));
                d.databaseReadOnly(faulted, false);
            }
            case REPLICATION_BACKLOG -> {
                if (d.kafka().isPresent()) {
                    note.accept(String.format("%.1f s: %s: SIGCONT to the Kafka broker", seconds(start),
                                              b.scenario.id()));
                    d.pauseReplication(false);
                }
            }
            case DNS_DOWN -> {
                note.accept(String.format("%.1f s: %s: %s again", seconds(start), b.scenario.id(),
                                          d.naive() ? "the GeoDNS server answers" : "starting every DNS server"));
                if (!d.naive()) {
                    d.startDns();
                }
            }
            case CONTROL_PLANE_DOWN -> {
                if (!d.naive()) {
                    note.accept(String.format("%.1f s: %s: starting the control plane again on its data",
                                              seconds(start), b.scenario.id()));
                    d.startControlPlane();
                }
            }
            case PARTITION -> {
                if (d.partition(faulted, d.regions().get(1), false) > 0) {
                    note.accept(String.format("%.1f s: %s: healed", seconds(start), b.scenario.id()));
                }
            }
            case SLOW_REGION -> {
                if (d.slow(faulted, Duration.ZERO) > 0) {
                    note.accept(String.format("%.1f s: %s: latency removed", seconds(start), b.scenario.id()));
                }
            }
            default -> {
                note.accept(String.format("%.1f s: %s: starting %s again", seconds(start), b.scenario.id(),
                                          faulted.id()));
                d.startRegion(faulted);
            }
        }
    }

    private double seconds(long start) {
        return (b.ticker.getAsLong() - start) / 1e9;
    }

    private void pauseUntil(long deadline) {
        long left;
        while ((left = deadline - b.ticker.getAsLong()) > 0) {
            sleep(Math.min(left / 1_000_000 + 1, 200));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("drill interrupted", e);
        }
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("drill interrupted", e);
        }
    }

    /** A GeoDNS answer and until when (drill nanoseconds) it is kept. */
    private record CachedAnswer(Region region, long until) {}

    /** One row of a query's result. */
    private interface SqlRow {
        void accept(ResultSet rs) throws SQLException;
    }

    /** The phase of a request by when its visit or resend was due. */
    private enum Phase { BEFORE, FAULT, AFTER }

    /** How one logical request (a deposit, a resend, a read) ended, after its attempts. */
    private enum Outcome { OK, FAILED, REFUSED }

    /** The virtual users' requests and what they were told. */
    private final class Load {
        private final ProcessDeployment d;
        private final Region faulted;
        private final long start;
        private final long total;
        private final GeoDns dns;
        /** dns-down, unitas: each region's users resolve their entry through its DNS server with the resolver SDK. */
        private final EntryResolver resolver;
        /** dns-down, naive: each region's clients' cached GeoDNS answer (a shared resolver's cache). */
        private final Map<Region, CachedAnswer> cached = new ConcurrentHashMap<>();
        private final ExecutorService visits = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "drill-visit");
            t.setDaemon(true);
            return t;
        });
        private final AtomicLong pending = new AtomicLong();
        private final AtomicLong faultedServed = new AtomicLong();
        private final AtomicLong faultedTotal = new AtomicLong();
        private final AtomicLong othersServed = new AtomicLong();
        private final AtomicLong othersTotal = new AtomicLong();
        private final AtomicLong failedInFault = new AtomicLong();
        private final AtomicLong failedAfter = new AtomicLong();
        private final AtomicLong requests = new AtomicLong();
        private final AtomicLong foreign = new AtomicLong();
        private final AtomicLong notFound = new AtomicLong();
        private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        /** When the fault was injected (the drill's ticker); 0 before. */
        private volatile long faultAt;
        /** When a faulted region's user was first answered 2xx by another region after the fault. */
        private final AtomicLong firstElsewhere = new AtomicLong(Long.MAX_VALUE);
        /** Per user, when the first acknowledgement of one of their deposits arrived. */
        private final Map<String, Long> firstAcknowledged = new ConcurrentHashMap<>();

        Load(ProcessDeployment d, Region faulted, long start, long total, EntryResolver resolver) {
            this.d = d;
            this.resolver = resolver;
            this.faulted = faulted;
            this.start = start;
            this.total = total;
            this.dns = d.naive() ? new GeoDns(d.regions(), FALL, RISE) : null;
        }

        private Phase phase(long due) {
            long at = due - start;
            return at < total * 3 / 10 ? Phase.BEFORE : at < total * 7 / 10 ? Phase.FAULT : Phase.AFTER;
        }

        /** The naive side's health check: every region's wallets' liveness, every second, until {@code end}. */
        void probe(long end) {
            while (b.ticker.getAsLong() < end + TimeUnit.SECONDS.toNanos(5) || pending.get() > 0) {
                for (Region r : d.regions()) {
                    dns.observe(r, d.wallets(r).stream().anyMatch(this::live));
                }
                sleep(PROBE_EVERY.toMillis());
            }
        }

        private boolean live(URI wallet) {
            try {
                return http.send(HttpRequest.newBuilder(wallet.resolve(ProcessDeployment.LIVENESS))
                                            .timeout(Duration.ofSeconds(1)).build(),
                                 HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Starts {@code user}'s visits at their due times until the drill's end, each on a thread of its own. */
        void user(int index, String user, Region home) {
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            long every = Math.max(b.visitEvery.toNanos(), 1);
            long offset = every * index / b.users; // the users' visits spread over the interval
            for (long k = 0; start + offset + k * every < start + total; k++) {
                long due = start + offset + k * every;
                pauseUntil(due);
                inFlight.acquireUninterruptibly();
                long seq = k;
                submit(() -> {
                    try {
                        visit(index, user, home, seq, due);
                    } finally {
                        inFlight.release();
                    }
                });
            }
        }

        private void submit(Runnable task) {
            pending.incrementAndGet();
            visits.execute(() -> {
                try {
                    task.run();
                } finally {
                    pending.decrementAndGet();
                }
            });
        }

        /** Waits for every visit and resend to end (a resend gives up 15 s after the drill's end). */
        void awaitQuiet() {
            while (pending.get() > 0) {
                sleep(100);
            }
            visits.shutdown();
        }

        private void visit(int index, String user, Region home, long seq, long due) {
            String key = "drill-" + user + "-" + seq;
            SplittableRandom draw = new SplittableRandom(b.seed * 1_000_003L + index * 100_003L + seq);
            boolean loseAnswer = draw.nextInt(100) < 30;
            long resendAfter = TimeUnit.SECONDS.toNanos(1) + (long) (draw.nextDouble() * total / 5);
            Phase phase = phase(due);
            HttpResponse<String> deposit = deposit(user, home, key);
            boolean ok = deposit != null && deposit.statusCode() == 201;
            count(home, phase, outcome(deposit, ok));
            if (ok) {
                acknowledged.add(key);
                firstAcknowledged.merge(user, b.ticker.getAsLong(), Math::min);
                checkUser(user, home, deposit.body());
                if (loseAnswer) {
                    resend(user, home, key, due + resendAfter);
                }
            }
            long readSent = b.ticker.getAsLong();
            HttpResponse<String> read = send(user, home, HttpRequest.newBuilder().GET(), "/wallets/" + user);
            boolean cleanMiss = read != null && read.statusCode() == 404
                                && !read.headers().firstValue("content-type").orElse("").contains("problem");
            Long first = firstAcknowledged.get(user);
            boolean wrongMiss = cleanMiss && first != null && first < readSent;
            if (wrongMiss) {
                notFound.incrementAndGet();
            }
            boolean served = read != null && (read.statusCode() == 200 || cleanMiss && !wrongMiss);
            count(home, phase, outcome(read, served));
            if (read != null && read.statusCode() == 200) {
                checkUser(user, home, read.body());
            }
        }

        /** The same key again at {@code due}, and again a second after every failure, until 15 s past the end. */
        private void resend(String user, Region home, String key, long due) {
            if (due > start + total + TimeUnit.SECONDS.toNanos(15)) {
                return;
            }
            submit(() -> {
                pauseUntil(due);
                HttpResponse<String> again = deposit(user, home, key);
                boolean ok = again != null && again.statusCode() == 201;
                Outcome outcome = outcome(again, ok);
                count(home, phase(due), outcome);
                if (ok) {
                    checkUser(user, home, again.body());
                } else if (outcome == Outcome.FAILED || again.statusCode() == 409 || again.statusCode() == 503) {
                    resend(user, home, key, b.ticker.getAsLong() + TimeUnit.SECONDS.toNanos(1));
                }
            });
        }

        private HttpResponse<String> deposit(String user, Region home, String key) {
            return send(user, home, HttpRequest.newBuilder().header("content-type", "application/json")
                                               .header("Idempotency-Key", key)
                                               .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")),
                        "/wallets/" + user + "/deposits");
        }

        private Outcome outcome(HttpResponse<String> res, boolean ok) {
            if (ok) {
                return Outcome.OK;
            }
            return res == null || res.statusCode() >= 500 ? Outcome.FAILED : Outcome.REFUSED;
        }

        /** Counts an answer naming another user; notes the first answer of a faulted user served elsewhere. */
        private void checkUser(String user, Region home, String body) {
            Matcher m = USER.matcher(body);
            if (!m.find() || !m.group(1).equals(user)) {
                foreign.incrementAndGet();
            }
            long now = b.ticker.getAsLong();
            Matcher by = SERVED_BY.matcher(body);
            if (home.equals(faulted) && faultAt != 0 && by.find() && !by.group(1).equals(faulted.id())) {
                firstElsewhere.accumulateAndGet(now, Math::min);
            }
        }

        /** From the fault to the first 2xx of a faulted region's user served by another region; -1: none. */
        long failoverMillis() {
            long first = firstElsewhere.get();
            return first == Long.MAX_VALUE || faultAt == 0 ? -1 : Math.max(0, (first - faultAt) / 1_000_000);
        }

        private void count(Region home, Phase phase, Outcome outcome) {
            if (phase == Phase.AFTER && outcome == Outcome.FAILED) {
                failedAfter.incrementAndGet();
            }
            if (phase != Phase.FAULT) {
                return;
            }
            boolean mine = home.equals(faulted);
            (mine ? faultedTotal : othersTotal).incrementAndGet();
            if (outcome == Outcome.OK) {
                (mine ? faultedServed : othersServed).incrementAndGet();
            } else if (outcome == Outcome.FAILED) {
                failedInFault.incrementAndGet();
            }
        }

        /**
         * The entries a request tries now, in order; none when the name does not resolve. Unitas: the home's gateway,
         * then the others' (a resolver SDK's SRV answer); in dns-down the gateway the SDK picks through the region's
         * DNS server (a fresh or stale answer, or the fallback pool). Naive: the wallet instances of the region the
         * GeoDNS answer names, kept for {@link #NAIVE_TTL} (so a switch reaches a client once its answer expires);
         * in dns-down none is had while the server is down.
         */
        private List<URI> entries(Region home) {
            if (resolver != null) {
                URI picked = resolver.entry(home, home.id());
                return picked == null ? List.of() : List.of(picked);
            }
            if (dns != null) {
                Region answer = cachedAnswer(home);
                return answer == null ? List.of() : d.entries(answer);
            }
            List<URI> entries = new ArrayList<>(d.entries(home));
            d.regions().stream().filter(r -> !r.equals(home)).forEach(r -> entries.addAll(d.entries(r)));
            return entries;
        }

        /**
         * The GeoDNS answer for {@code home}'s clients: the cached one within its TTL, else asked now (none in
         * dns-down's fault).
         */
        private Region cachedAnswer(Region home) {
            long now = b.ticker.getAsLong();
            CachedAnswer kept = cached.get(home);
            if (kept != null && now < kept.until()) {
                return kept.region();
            }
            if (b.scenario == Scenario.DNS_DOWN && phase(now) == Phase.FAULT) {
                return null; // the server is down: the query times out, the name does not resolve
            }
            Region answer = dns.resolve(home);
            cached.put(home, new CachedAnswer(answer, now + NAIVE_TTL.toNanos()));
            return answer;
        }

        /**
         * Up to three attempts: an entry that does not answer is left for the next one at once; a 5xx is retried with
         * the same key after a pause, from the first entry (naive: as DNS answers then). Null when no attempt got an
         * answer.
         */
        private HttpResponse<String> send(String user, Region home, HttpRequest.Builder request, String path) {
            HttpResponse<String> last = null;
            List<URI> entries = entries(home);
            int entry = 0;
            for (int attempt = 0; attempt < 3; attempt++) {
                if (entries.isEmpty()) {
                    // the name did not resolve: nothing to send to; asked again after the pause
                    sleep(150 + 150L * attempt);
                    entries = entries(home);
                    continue;
                }
                try {
                    requests.incrementAndGet();
                    last = http.send(request.uri(entries.get(entry).resolve(path)).timeout(Duration.ofSeconds(5))
                                            .build(), HttpResponse.BodyHandlers.ofString());
                    if (last.statusCode() < 500) {
                        return last;
                    }
                } catch (IOException e) {
                    if (entry + 1 < entries.size()) {
                        entry++;
                        continue;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return last;
                }
                sleep(150 + 150L * attempt);
                entries = entries(home);
                entry = 0;
            }
            return last;
        }

        /**
         * Waits until every region holds every other region's wallets as their home does (balance and version), or
         * {@code deadline}; the copies that still differ then.
         */
        long awaitCopies(long deadline) {
            while (true) {
                long off = copiesOff();
                if (off == 0 || b.ticker.getAsLong() > deadline) {
                    return off;
                }
                sleep(500);
            }
        }

        private long copiesOff() {
            Map<Region, Map<String, String>> wallets = new HashMap<>();
            for (Region r : d.regions()) {
                Map<String, String> held = new HashMap<>();
                query(r, "SELECT user_id, balance || ' ' || version FROM wallet", rs -> held.put(rs.getString(1),
                                                                                                 rs.getString(2)));
                wallets.put(r, held);
            }
            long off = 0;
            for (Region home : d.regions()) {
                for (Map.Entry<String, String> w : wallets.get(home).entrySet()) {
                    if (!home.equals(homeOf(w.getKey()))) {
                        continue;
                    }
                    for (Region other : d.regions()) {
                        if (!other.equals(home) && !w.getValue().equals(wallets.get(other).get(w.getKey()))) {
                            off++;
                        }
                    }
                }
            }
            return off;
        }

        /** The home of a user id by the deployment's ranges: ids mod 1000 × regions in [1000 i, 1000 i + 999]. */
        private Region homeOf(String user) {
            long span = (long) Layout.USERS_PER_UNIT * d.regions().size();
            return d.regions().get((int) (Long.parseLong(user) % span / Layout.USERS_PER_UNIT));
        }

        private void query(Region r, String sql, SqlRow row) {
            try (Connection c = DriverManager.getConnection(d.databaseUrl(r), "postgres", "");
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    row.accept(rs);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(r.id() + ": cannot count the invariants: " + e.getMessage(), e);
            }
        }

        /**
         * Counts the invariants in every region's database. Without replication each region's wallets stand alone:
         * each balance against its own region's ledger. With it a wallet is one state shipped between regions while
         * each deposit's ledger line stays where it was charged, so after a unit moved a user's ledger is split
         * between the old home (before) and the new one (after): each user's newest wallet (highest version, the one
         * every copy converges to) is checked against the sum of their ledger lines in all regions. A deposit the
         * old home charged and never shipped before it died is then missing from that balance (counted, not hidden).
         */
        ProcessDrillResult result(String mode, List<String> notes, long copiesOff, long failoverMillis, long rpo) {
            Map<String, Long> ledger = new HashMap<>();
            Map<String, Long> sums = new HashMap<>();
            Map<String, long[]> newest = new HashMap<>(); // user -> {version, balance}
            long[] mismatches = new long[1];
            boolean replicated = !d.naive() && d.kafka().isPresent();
            for (Region r : d.regions()) {
                // a key's charges net of its refunds (a deposit charged again after a failover, refunded when the
                // old home's unshipped deposit reaches the new home)
                query(r, "SELECT deposit_key, SUM(CASE WHEN amount < 0 THEN -1 ELSE 1 END) FROM wallet_ledger"
                         + " WHERE deposit_key LIKE 'drill-%' GROUP BY deposit_key",
                      rs -> ledger.merge(rs.getString(1), rs.getLong(2), Long::sum));
                if (replicated) {
                    query(r, "SELECT user_id, SUM(amount) FROM wallet_ledger GROUP BY user_id",
                          rs -> sums.merge(rs.getString(1), rs.getLong(2), Long::sum));
                    query(r, "SELECT user_id, version, balance FROM wallet", rs -> newest.merge(
                            rs.getString(1), new long[] {rs.getLong(2), rs.getLong(3)},
                            (x, y) -> x[0] >= y[0] ? x : y));
                } else {
                    query(r, "SELECT w.user_id FROM wallet w WHERE w.balance <> (SELECT COALESCE(SUM(amount), 0)"
                             + " FROM wallet_ledger l WHERE l.user_id = w.user_id)", rs -> mismatches[0]++);
                }
            }
            newest.forEach((user, w) -> {
                if (w[1] != sums.getOrDefault(user, 0L)) {
                    mismatches[0]++;
                }
            });
            long twice = ledger.values().stream().filter(n -> n > 1).count();
            long lost = acknowledged.stream().filter(k -> ledger.getOrDefault(k, 0L) < 1).count();
            return new ProcessDrillResult(b.scenario, mode, faulted.id(), faultedServed.get(), faultedTotal.get(),
                                          othersServed.get(), othersTotal.get(), failedInFault.get(),
                                          failedAfter.get(), requests.get(), acknowledged.size(), twice, lost,
                                          foreign.get(), mismatches[0], notFound.get(), copiesOff, failoverMillis,
                                          rpo, List.copyOf(notes));
        }
    }

    /** Collects the settings of a {@link ProcessDrill}. */
    public static final class Builder {
        Scenario scenario;
        Duration duration = Duration.ofSeconds(60);
        int users = 6;
        Duration visitEvery = Duration.ofMillis(250);
        long seed = 1;
        Consumer<String> progress = line -> { };
        LongSupplier ticker = System::nanoTime;

        private Builder() {}

        /** The fault; one of {@link ProcessDrill#scenarios()}. */
        public Builder scenario(Scenario scenario) {
            if (!scenarios().contains(Objects.requireNonNull(scenario, "scenario"))) {
                throw new IllegalArgumentException("scenario: '" + scenario.id() + "' (expected: one of "
                        + scenarios().stream().map(Scenario::id).toList() + " on processes; the others run in"
                        + " process only so far)");
            }
            this.scenario = scenario;
            return this;
        }

        /** The whole drill (default 60 s): fault at 30%, recovery at 70%. At least 10 s. */
        public Builder duration(Duration duration) {
            if (duration.compareTo(Duration.ofSeconds(10)) < 0) {
                throw new IllegalArgumentException("duration: " + duration + " (expected: >= 10s)");
            }
            this.duration = duration;
            return this;
        }

        /** Virtual users (default 6), spread over the regions in turn. */
        public Builder users(int users) {
            if (users < 1 || users > 200) {
                throw new IllegalArgumentException("users: " + users + " (expected: 1..200)");
            }
            this.users = users;
            return this;
        }

        /** How often each user starts a visit, a deposit and a read (default 250 ms; at least 10 ms). */
        public Builder visitEvery(Duration visitEvery) {
            if (visitEvery.compareTo(Duration.ofMillis(10)) < 0 || visitEvery.compareTo(Duration.ofSeconds(10)) > 0) {
                throw new IllegalArgumentException("visit every: " + visitEvery + " (expected: 10ms to 10s on"
                                                   + " processes, an open loop)");
            }
            this.visitEvery = visitEvery;
            return this;
        }

        /** The seed of the draws (which answers are lost, when they are sent again); default 1. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Where progress lines go. */
        public Builder progress(Consumer<String> progress) {
            this.progress = Objects.requireNonNull(progress, "progress");
            return this;
        }

        /** The drill's clock, in nanoseconds (default {@link System#nanoTime}). */
        public Builder ticker(LongSupplier ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** The drill, ready to run. */
        public ProcessDrill build() {
            Objects.requireNonNull(scenario, "scenario");
            return new ProcessDrill(this);
        }
    }
}
