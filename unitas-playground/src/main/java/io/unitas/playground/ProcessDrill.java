package io.unitas.playground;

import io.unitas.core.Region;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A drill against a {@link ProcessDeployment}: virtual users deposit into their wallets (each deposit with a key of
 * its own, retried with the same key when its answer is lost) and read them, entering at their region's gateway and
 * at the next region's when it does not answer, while a {@link Scenario}'s fault hits the first region from 30% of
 * the drill to 70%: {@code region-down} is {@code kill -9} of every process of the region, {@code db-readonly} its
 * PostgreSQL server turned read-only while every process stays up. Once the region is back, the invariants are counted in every region's database: no key charged
 * twice, no acknowledged deposit lost, no answer naming another user, every balance the sum of its ledger.
 */
public final class ProcessDrill {

    private static final Pattern USER = Pattern.compile("\"user\":\"([^\"]*)\"");

    private final Builder b;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private ProcessDrill(Builder b) {
        this.b = b;
    }

    /** A builder; the scenario is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The scenarios a drill runs on processes so far. */
    public static List<Scenario> scenarios() {
        return List.of(Scenario.REGION_DOWN, Scenario.DB_READONLY);
    }

    /** Runs the drill; the deployment is left running, the faulted region back. */
    public ProcessDrillResult run(ProcessDeployment d) {
        Region faulted = d.regions().get(0);
        List<String> notes = new ArrayList<>();
        Consumer<String> note = line -> {
            notes.add(line);
            b.progress.accept(line);
        };
        Load load = new Load(d, faulted);
        long start = b.ticker.getAsLong();
        long total = b.duration.toNanos();
        List<Thread> users = new ArrayList<>();
        for (int i = 0; i < b.users; i++) {
            Region home = d.regions().get(i % d.regions().size());
            String user = d.userId(home, 100 + i);
            Thread t = new Thread(() -> load.user(user, home, start + total), "drill-user-" + user);
            t.start();
            users.add(t);
        }
        pauseUntil(start + total * 3 / 10);
        load.faultStarted();
        inject(d, faulted, note, start);
        pauseUntil(start + total * 7 / 10);
        recover(d, faulted, note, start);
        load.faultEnded();
        note.accept(String.format("%.1f s: %s answers again", seconds(start), faulted.id()));
        users.forEach(ProcessDrill::join);
        d.awaitReady(Duration.ofMinutes(3));
        return load.result(d, faulted, notes);
    }

    private void inject(ProcessDeployment d, Region faulted, Consumer<String> note, long start) {
        if (b.scenario == Scenario.DB_READONLY) {
            note.accept(String.format("%.1f s: %s: %s's PostgreSQL turns read-only; its processes stay up",
                                      seconds(start), b.scenario.id(), faulted.id()));
            d.databaseReadOnly(faulted, true);
        } else {
            note.accept(String.format("%.1f s: %s: kill -9 of every process of %s", seconds(start), b.scenario.id(),
                                      faulted.id()));
            d.killRegion(faulted);
        }
    }

    private void recover(ProcessDeployment d, Region faulted, Consumer<String> note, long start) {
        if (b.scenario == Scenario.DB_READONLY) {
            note.accept(String.format("%.1f s: %s: %s's PostgreSQL takes writes again", seconds(start),
                                      b.scenario.id(), faulted.id()));
            d.databaseReadOnly(faulted, false);
        } else {
            note.accept(String.format("%.1f s: %s: starting %s again", seconds(start), b.scenario.id(), faulted.id()));
            d.startRegion(faulted);
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

    /** The virtual users' requests and what they were told. */
    private final class Load {
        private final ProcessDeployment d;
        private final Region faulted;
        private volatile boolean inFault;
        private volatile boolean recovered;
        private final AtomicLong faultedServed = new AtomicLong();
        private final AtomicLong faultedTotal = new AtomicLong();
        private final AtomicLong othersServed = new AtomicLong();
        private final AtomicLong othersTotal = new AtomicLong();
        private final AtomicLong foreign = new AtomicLong();
        private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();

        Load(ProcessDeployment d, Region faulted) {
            this.d = d;
            this.faulted = faulted;
        }

        void faultStarted() {
            inFault = true;
        }

        void faultEnded() {
            inFault = false;
            recovered = true;
        }

        /** One user's visits until {@code end} (and until the faulted region is back). */
        void user(String user, Region home, long end) {
            List<URI> entries = new ArrayList<>(List.of(d.gateway(home)));
            d.regions().stream().filter(r -> !r.equals(home)).forEach(r -> entries.add(d.gateway(r)));
            boolean mine = home.equals(faulted);
            long seq = 0;
            while (b.ticker.getAsLong() < end || !recovered) {
                long visitStart = b.ticker.getAsLong();
                String key = "drill-" + user + "-" + seq++;
                boolean during = inFault;
                HttpResponse<String> deposit = send(entries, user, HttpRequest.newBuilder()
                        .header("content-type", "application/json").header("Idempotency-Key", key)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1}")), "/wallets/" + user + "/deposits");
                count(mine, during, deposit != null && deposit.statusCode() == 201);
                if (deposit != null && deposit.statusCode() == 201) {
                    acknowledged.add(key);
                    checkUser(user, deposit.body());
                }
                HttpResponse<String> read = send(entries, user, HttpRequest.newBuilder().GET(), "/wallets/" + user);
                count(mine, during, read != null && (read.statusCode() == 200 || read.statusCode() == 404
                                                     && !read.headers().firstValue("content-type").orElse("")
                                                             .contains("problem")));
                if (read != null && read.statusCode() == 200) {
                    checkUser(user, read.body());
                }
                long left = b.visitEvery.toNanos() - (b.ticker.getAsLong() - visitStart);
                if (left > 0) {
                    sleep(left / 1_000_000);
                }
            }
        }

        private void checkUser(String user, String body) {
            Matcher m = USER.matcher(body);
            if (!m.find() || !m.group(1).equals(user)) {
                foreign.incrementAndGet();
            }
        }

        private void count(boolean mine, boolean during, boolean served) {
            if (!during) {
                return;
            }
            (mine ? faultedTotal : othersTotal).incrementAndGet();
            if (served) {
                (mine ? faultedServed : othersServed).incrementAndGet();
            }
        }

        /**
         * Up to three attempts: a gateway that does not answer is left for the next one in the user's order; a 5xx
         * is retried with the same key after a pause. Null when no attempt got an answer.
         */
        private HttpResponse<String> send(List<URI> entries, String user, HttpRequest.Builder request, String path) {
            HttpResponse<String> last = null;
            int entry = 0;
            for (int attempt = 0; attempt < 3; attempt++) {
                try {
                    last = http.send(request.uri(entries.get(entry).resolve(path)).timeout(Duration.ofSeconds(5))
                                            .build(), HttpResponse.BodyHandlers.ofString());
                    if (last.statusCode() < 500) {
                        return last;
                    }
                } catch (IOException e) {
                    entry = Math.min(entry + 1, entries.size() - 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return last;
                }
                sleep(150 + 150L * attempt);
            }
            return last;
        }

        ProcessDrillResult result(ProcessDeployment d, Region faulted, List<String> notes) {
            Map<String, Long> ledger = new HashMap<>();
            long mismatches = 0;
            for (Region r : d.regions()) {
                try (Connection c = DriverManager.getConnection(d.databaseUrl(r), "postgres", "");
                     Statement s = c.createStatement()) {
                    try (ResultSet rs = s.executeQuery("SELECT deposit_key, COUNT(*) FROM wallet_ledger"
                                                       + " WHERE deposit_key LIKE 'drill-%' GROUP BY deposit_key")) {
                        while (rs.next()) {
                            ledger.merge(rs.getString(1), rs.getLong(2), Long::sum);
                        }
                    }
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM wallet w WHERE w.balance <> (SELECT"
                            + " COALESCE(SUM(amount), 0) FROM wallet_ledger l WHERE l.user_id = w.user_id)")) {
                        rs.next();
                        mismatches += rs.getLong(1);
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(r.id() + ": cannot count the invariants: " + e.getMessage(), e);
                }
            }
            long twice = ledger.values().stream().filter(n -> n > 1).count();
            long lost = acknowledged.stream().filter(k -> !ledger.containsKey(k)).count();
            return new ProcessDrillResult(b.scenario, faulted.id(), faultedServed.get(), faultedTotal.get(),
                                          othersServed.get(), othersTotal.get(), acknowledged.size(), twice, lost,
                                          foreign.get(), mismatches, List.copyOf(notes));
        }
    }

    /** Collects the settings of a {@link ProcessDrill}. */
    public static final class Builder {
        Scenario scenario;
        Duration duration = Duration.ofSeconds(60);
        int users = 6;
        Duration visitEvery = Duration.ofMillis(250);
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

        /** Concurrent virtual users (default 6), spread over the regions in turn. */
        public Builder users(int users) {
            if (users < 1 || users > 200) {
                throw new IllegalArgumentException("users: " + users + " (expected: 1..200)");
            }
            this.users = users;
            return this;
        }

        /** How often each user starts a visit, a deposit and a read (default 250 ms). */
        public Builder visitEvery(Duration visitEvery) {
            if (visitEvery.isNegative() || visitEvery.compareTo(Duration.ofSeconds(10)) > 0) {
                throw new IllegalArgumentException("visit every: " + visitEvery + " (expected: 0 to 10s)");
            }
            this.visitEvery = visitEvery;
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
