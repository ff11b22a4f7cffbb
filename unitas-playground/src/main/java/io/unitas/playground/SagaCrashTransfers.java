package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.core.saga.SagaRetry;
import io.unitas.data.Home;
import io.unitas.data.saga.HomeSteps;
import io.unitas.data.saga.Saga;
import io.unitas.data.saga.SagaCoordinator;
import io.unitas.data.saga.StepContext;
import io.unitas.data.saga.StepRefused;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * What one coordinator of the {@code saga-crash} drill does, in the drill's JVM or in a JVM of its own
 * ({@link SagaCrashCoordinator}): it sends every planned transfer no coordinator claimed yet (each claimed in cn's
 * {@value #CLAIMS} table before it is sent, so the next coordinator knows where the last one stopped), as a saga or,
 * naive, as two local transactions, and with sagas keeps recovering until every saga has ended. The drill counts
 * what happened from the same tables.
 */
final class SagaCrashTransfers {

    static final int USERS_PER_REGION = 10;
    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");
    /** The transfers claimed: {@code i}, the plan's index; {@code outcome}, naive only, how it ended. */
    static final String CLAIMS = "saga_crash_transfers";
    /**
     * One row: {@code until}, how many transfers may be claimed for now. The drill holds the coordinators at half of
     * them until eu's database is down, as its clock-free schedule needs; claims racing past it overshoot by a few.
     */
    static final String GATE = "saga_crash_gate";
    private static final int WORKERS = 4;
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final SagaRetry RETRY = new SagaRetry(4, Duration.ofMillis(200), Duration.ofSeconds(1));
    /** How long a coordinator waits, its transfers sent, for the operator to end the stuck sagas. */
    private static final Duration SETTLE_AT_MOST = Duration.ofSeconds(300);

    private final boolean naive;
    private final List<String[]> plan;
    private final Map<Region, DataSource> stores;
    private final DataSource own;
    private final SagaCoordinator coordinator;
    private final BooleanSupplier dead;
    private final Consumer<String> log;

    /**
     * @param stores each region's database, where the steps (naive: the local transactions) write
     * @param own    this coordinator's connection to cn: its claims and, with sagas, its sagas' rows
     * @param dead   whether this coordinator's process died (in the drill's JVM: its connections were cut)
     */
    SagaCrashTransfers(boolean naive, int count, long seed, String owner, Map<Region, DataSource> stores,
                       DataSource own, BooleanSupplier dead, Consumer<String> log) {
        this.naive = naive;
        this.plan = plan(count, seed);
        this.stores = stores;
        this.own = own;
        this.coordinator = naive ? null : coordinator(own, stores, owner);
        this.dead = dead;
        this.log = log;
    }

    /** The transfers drawn from {@code seed}: payer, payee (homed in the other region), amount. */
    private static List<String[]> plan(int count, long seed) {
        Random random = new Random(seed);
        List<String[]> plan = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            boolean fromCn = random.nextBoolean();
            String from = (fromCn ? "cn-" : "eu-") + random.nextInt(USERS_PER_REGION);
            String to = (fromCn ? "eu-" : "cn-") + random.nextInt(USERS_PER_REGION);
            plan.add(new String[] {from, to, Long.toString(1 + random.nextInt(50))});
        }
        return plan;
    }

    /**
     * A coordinator of the transfer saga (debit in the payer's home, credit in the payee's, each by {@link HomeSteps})
     * whose rows are in {@code db}; the drill's operator retries the stuck sagas with one.
     */
    static SagaCoordinator coordinator(DataSource db, Map<Region, DataSource> stores, String owner) {
        Clock clock = Clock.systemUTC();
        HomeSteps homes = HomeSteps.builder()
                .homes(key -> Home.of(key, "u-" + key.substring(0, 2), Region.of(key.substring(0, 2))))
                .stores(region -> Optional.ofNullable(stores.get(region)))
                .fenceWait(Duration.ZERO).clock(clock).build();
        Saga transfer = Saga.builder("transfer")
                .step("debit", STEP_TIMEOUT,
                      step -> homes.write(step, part(step, 0), c -> add(c, part(step, 0), -amount(step))),
                      step -> homes.write(step, part(step, 0), c -> add(c, part(step, 0), amount(step))))
                .step("credit", STEP_TIMEOUT,
                      step -> homes.write(step, part(step, 1), c -> add(c, part(step, 1), amount(step))),
                      step -> homes.write(step, part(step, 1), c -> add(c, part(step, 1), -amount(step))))
                .build();
        return SagaCoordinator.builder().dataSource(db).saga(transfer).owner(owner).clock(clock).lease(LEASE)
                .retry(RETRY).build();
    }

    /**
     * Sends every transfer not claimed yet on {@link #WORKERS} threads (with sagas, recovering every 250 ms the sagas
     * any coordinator left once their leases expire), then waits until every saga has ended; returns early when this
     * coordinator dies.
     *
     * @throws IllegalStateException when a transfer failed otherwise than by this coordinator's death
     */
    void run() throws Exception {
        try (AutoCloseable recovery = naive ? () -> { } : coordinator.recoverEvery(Duration.ofMillis(250))) {
            Set<Integer> claimed = new HashSet<>();
            try (Connection c = own.getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT i FROM " + CLAIMS)) {
                while (rs.next()) {
                    claimed.add(rs.getInt(1));
                }
            }
            ConcurrentLinkedQueue<Integer> todo = new ConcurrentLinkedQueue<>();
            for (int i = 0; i < plan.size(); i++) {
                if (!claimed.contains(i)) {
                    todo.add(i);
                }
            }
            log.accept(todo.size() + " transfers to send (" + claimed.size() + " claimed before)");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                Thread t = new Thread(() -> {
                    try {
                        for (Integer i = todo.poll(); i != null && !dead.getAsBoolean(); i = todo.poll()) {
                            send(i);
                        }
                    } catch (Throwable e) {
                        if (!dead.getAsBoolean()) {
                            failure.compareAndSet(null, e);
                        }
                    }
                }, "saga-crash-worker-" + w);
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new IllegalStateException("a transfer failed: " + failure.get(), failure.get());
            }
            if (naive || dead.getAsBoolean()) {
                return;
            }
            log.accept("transfers sent; recovering until every saga has ended (the operator retries the stuck)");
            long deadline = System.nanoTime() + SETTLE_AT_MOST.toNanos();
            while (!dead.getAsBoolean() && unended(own) > 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(unended(own) + " sagas not ended after " + SETTLE_AT_MOST);
                }
                LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
            }
        }
    }

    /** The sagas not ended (completed or compensated): in flight, backing off, or stuck. */
    static long unended(DataSource cn) {
        return queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE state NOT IN ('completed', 'compensated')");
    }

    /** Claims transfer {@code i} in cn once the gate lets it, then sends it. */
    private void send(int i) throws SQLException {
        while (!claim(i)) {
            if (dead.getAsBoolean()) {
                return;
            }
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
        String[] t = plan.get(i);
        if (naive) {
            outcome(i, naiveTransfer(t[0], t[1], Long.parseLong(t[2])));
        } else {
            coordinator.start("transfer", String.join(",", t));
        }
    }

    /** Two local transactions, one in each home, as a team without sagas writes it; returns how it ended. */
    private String naiveTransfer(String from, String to, long amount) {
        try {
            local(from, -amount);
        } catch (StepRefused | SQLException e) {
            return "refused"; // not enough credit, or the payer's home is down: nothing written
        }
        if (dead.getAsBoolean()) {
            return null; // the process died between the two writes
        }
        try {
            local(to, amount);
            return "completed";
        } catch (SQLException e) {
            return "lost"; // the credit failed: the debit stays, logged and forgotten
        }
    }

    private boolean claim(int i) throws SQLException {
        try (Connection c = own.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + CLAIMS + " (i) SELECT ? WHERE (SELECT COUNT(*)"
                                                       + " FROM " + CLAIMS + ") < (SELECT until FROM " + GATE + ")")) {
            ps.setInt(1, i);
            return ps.executeUpdate() == 1;
        }
    }

    private void outcome(int i, String outcome) throws SQLException {
        if (outcome == null) {
            return;
        }
        try (Connection c = own.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + CLAIMS + " SET outcome = ? WHERE i = ?")) {
            ps.setString(1, outcome);
            ps.setInt(2, i);
            ps.executeUpdate();
        }
    }

    private void local(String account, long amount) throws SQLException {
        try (Connection c = stores.get(Region.of(account.substring(0, 2))).getConnection()) {
            add(c, account, amount);
        }
    }

    private static String part(StepContext step, int i) {
        return step.payload().split(",")[i];
    }

    private static long amount(StepContext step) {
        return Long.parseLong(part(step, 2));
    }

    /** Adds {@code amount} to {@code account}; a debit below zero applies nothing and never will: refused. */
    private static void add(Connection c, String account, long amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE accounts SET credit = credit + ? WHERE id = ? AND credit + ? >= 0")) {
            ps.setLong(1, amount);
            ps.setString(2, account);
            ps.setLong(3, amount);
            if (ps.executeUpdate() == 0) {
                throw new StepRefused(account + ": credit below " + -amount);
            }
        }
    }

    static long queryLong(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
