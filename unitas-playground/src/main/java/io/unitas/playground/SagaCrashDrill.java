package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.core.saga.SagaRetry;
import io.unitas.data.Home;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.saga.HomeSteps;
import io.unitas.data.saga.Saga;
import io.unitas.data.saga.SagaCoordinator;
import io.unitas.data.saga.SagaRecord;
import io.unitas.data.saga.StepContext;
import io.unitas.data.saga.StepRefused;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresServer;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The {@code saga-crash} drill: transfers of credit between users homed in two regions ({@code cn}, {@code eu}), each
 * region with its own PostgreSQL server, while the coordinator dies mid-saga (its process gone: every connection cut,
 * nothing more written) and later eu's database is killed and restarted. With unitas each transfer is a saga (debit in
 * the payer's home, credit in the payee's, each applied once); a second coordinator recovers what the first left once
 * its leases expire, retries through eu's outage, and the drill, as the operator, retries the sagas left stuck when eu
 * is back. The naive run does what a team without sagas does: a local transaction in each home, one after the other.
 *
 * <p>Invariant: the total credit is conserved (no money created or destroyed) and every transfer ends completed or
 * compensated.
 */
public final class SagaCrashDrill {

    private static final int USERS_PER_REGION = 10;
    private static final long START_CREDIT = 1_000;
    private static final int WORKERS = 4;
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration LEASE = Duration.ofSeconds(10);
    /** Longer than a step's retries (200 ms, 400 ms, 800 ms apart). */
    private static final Duration EU_DOWN = Duration.ofSeconds(4);
    /** Past this eu comes back even if no step's retries ran out yet. */
    private static final Duration EU_DOWN_AT_MOST = Duration.ofSeconds(60);
    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    /**
     * Connections each pool keeps open (a region's store: the workers' steps and the recovery loop; the first
     * coordinator's own): a statement takes one of them rather than a new session, whose server process would start.
     */
    static final int POOL = 10;

    private SagaCrashDrill() {}

    /**
     * What the drill counted.
     *
     * @param naive          whether it ran without sagas
     * @param transfers      transfers started (unitas: sagas recorded; one the dying coordinator never recorded is
     *                       not a saga, and counted in flight)
     * @param completed      ended completed (naive: both writes made)
     * @param compensated    ended compensated (naive: refused before writing anything; a failed credit is not
     *                       undone)
     * @param inFlightAtCrash transfers the coordinator's death interrupted
     * @param retriedByHand  stuck sagas the operator retried once eu was back (recorded with who and why)
     * @param unfinished     transfers that ended neither completed nor compensated
     * @param creditBefore   the total credit of both regions before
     * @param creditAfter    and after
     * @param sessions       the sessions both servers opened ({@code pg_stat_database.sessions}; eu's since its
     *                       restart, as a crash discards its statistics), each a server process started
     */
    public record Result(boolean naive, int transfers, int completed, int compensated, int inFlightAtCrash,
                         int retriedByHand, int unfinished, long creditBefore, long creditAfter, long sessions) {

        Result counting(long opened) {
            return new Result(naive, transfers, completed, compensated, inFlightAtCrash, retriedByHand, unfinished,
                              creditBefore, creditAfter, opened);
        }

        /** Whether the credit was conserved and every transfer ended. */
        public boolean holds() {
            return creditBefore == creditAfter && unfinished == 0;
        }

        /** {@code unitas} or {@code naive}. */
        public String mode() {
            return naive ? "naive" : "unitas";
        }
    }

    /** The results side by side, one column per mode, and whether the invariant held. */
    public static String table(List<Result> results) {
        StringBuilder out = new StringBuilder(String.format("%-40s", "saga-crash"));
        results.forEach(r -> out.append(String.format("%14s", r.mode())));
        out.append('\n');
        row(out, "transfers", results, Result::transfers);
        row(out, "completed", results, Result::completed);
        row(out, "compensated (naive: refused, unwritten)", results, Result::compensated);
        row(out, "in flight when the coordinator died", results, Result::inFlightAtCrash);
        row(out, "stuck, retried by the operator", results, Result::retriedByHand);
        row(out, "unfinished (neither)", results, Result::unfinished);
        row(out, "total credit before", results, Result::creditBefore);
        row(out, "total credit after", results, Result::creditAfter);
        row(out, "credit created (+) or destroyed (-)", results, r -> r.creditAfter() - r.creditBefore());
        row(out, "PostgreSQL sessions", results, Result::sessions);
        out.append(String.format("%-40s", "invariant"));
        results.forEach(r -> out.append(String.format("%14s", r.holds() ? "holds" : "BROKEN")));
        return out.append('\n').toString();
    }

    private static void row(StringBuilder out, String name, List<Result> results,
                            java.util.function.ToLongFunction<Result> value) {
        out.append(String.format("%-40s", name));
        results.forEach(r -> out.append(String.format("%14d", value.applyAsLong(r))));
        out.append('\n');
    }

    /**
     * Runs the drill: {@code transfers} transfers drawn from {@code seed}, the coordinator killed after a quarter of
     * them, eu's database killed at half of them (the transfers after it start once it is down) and restarted at three
     * quarters, at least 4 s later and, with sagas, once some saga's retries ran out against it.
     */
    public static Result run(boolean naive, int transfers, long seed, Consumer<String> progress) {
        if (transfers < 8) {
            throw new IllegalArgumentException("transfers: " + transfers + " (expected: >= 8)");
        }
        progress.accept("saga-crash (" + (naive ? "naive" : "unitas") + "): starting cn's and eu's PostgreSQL");
        int cnPort = Ports.free();
        int euPort = Ports.free();
        try (PostgresServer cn = PostgresServer.start(cnPort); PostgresServer eu = PostgresServer.start(euPort)) {
            Run run = new Run(naive, transfers, seed, progress, cn, eu);
            Result result;
            try {
                result = run.run();
            } finally {
                run.close();
            }
            return result.counting(run.sessions());
        }
    }

    /** One run: the regions' stores, the planned transfers, and what happened to them. */
    private static final class Run implements AutoCloseable {
        private final boolean naive;
        private final int count;
        private final Consumer<String> progress;
        private final PostgresServer cnServer;
        private final PostgresServer euServer;
        private final JdbcConnectionPool cn;
        private final JdbcConnectionPool eu;
        /** The first coordinator's own, as its process has its own; the drill's kill closes it. */
        private final JdbcConnectionPool firstCoordinators;
        private final Map<Region, DataSource> stores;
        private final List<String[]> plan = new ArrayList<>();
        private final Clock clock = Clock.systemUTC();
        private final AtomicInteger next = new AtomicInteger();
        private final ConcurrentLinkedQueue<Integer> notStarted = new ConcurrentLinkedQueue<>();
        private final AtomicInteger inFlightAtCrash = new AtomicInteger();
        private final AtomicInteger naiveCompleted = new AtomicInteger();
        private final AtomicInteger naiveRefused = new AtomicInteger();
        private final List<String> sagaIds = new CopyOnWriteArrayList<>();
        private volatile boolean crashed;
        private volatile long euDownSince;
        /** Open once eu's database is down: no transfer after the one that kills it starts before. */
        private final CountDownLatch euDown = new CountDownLatch(1);

        Run(boolean naive, int count, long seed, Consumer<String> progress, PostgresServer cnServer,
            PostgresServer euServer) {
            this.naive = naive;
            this.count = count;
            this.progress = progress;
            this.cnServer = cnServer;
            this.euServer = euServer;
            this.cn = PostgresPool.create(cnServer.jdbcUrl(), "unitas-saga-crash-cn", POOL);
            this.eu = PostgresPool.create(euServer.jdbcUrl(), "unitas-saga-crash-eu", POOL);
            this.firstCoordinators = PostgresPool.create(cnServer.jdbcUrl(), "unitas-saga-crash-cn-1", POOL);
            this.stores = Map.of(CN, cn, EU, eu);
            Random random = new Random(seed);
            for (int i = 0; i < count; i++) {
                boolean fromCn = random.nextBoolean();
                String from = (fromCn ? "cn-" : "eu-") + random.nextInt(USERS_PER_REGION);
                String to = (fromCn ? "eu-" : "cn-") + random.nextInt(USERS_PER_REGION);
                plan.add(new String[] {from, to, Long.toString(1 + random.nextInt(50))});
            }
        }

        Result run() {
            for (Map.Entry<Region, DataSource> store : stores.entrySet()) {
                UnitasSchema.migrate(store.getValue(), clock);
                String prefix = store.getKey().id() + "-";
                execute(store.getValue(), "CREATE TABLE accounts (id VARCHAR(20) PRIMARY KEY, credit BIGINT NOT NULL"
                                          + " CHECK (credit >= 0))");
                for (int u = 0; u < USERS_PER_REGION; u++) {
                    execute(store.getValue(), "INSERT INTO accounts VALUES ('" + prefix + u + "', " + START_CREDIT
                                              + ")");
                }
            }
            long before = total();
            HomeSteps homes = HomeSteps.builder()
                    .homes(key -> Home.of(key, "u-" + key.substring(0, 2), Region.of(key.substring(0, 2))))
                    .stores(region -> Optional.ofNullable(stores.get(region)))
                    .fenceWait(Duration.ZERO).clock(clock).build();
            Saga transfer = transfer(homes);
            int crashAt = count / 4;
            int euDownAt = count / 2;
            int euUpAt = count * 3 / 4;

            // phase 1: the first coordinator, until it dies
            Killable firstDb = new Killable(firstCoordinators);
            SagaCoordinator first = naive ? null : coordinator(firstDb, transfer, "cn-1");
            workers(i -> {
                if (i == crashAt) {
                    progress.accept("saga-crash: the coordinator dies mid-saga (" + i + " transfers started)");
                    crashed = true;
                    firstDb.kill();
                    notStarted.add(i); // this process never sent it: the next one does
                    return false;
                }
                transfer(first, i);
                return true;
            });

            // phase 2: another coordinator (another process) takes over; eu's database dies and comes back
            SagaCoordinator second = naive ? null : coordinator(cn, transfer, "cn-2");
            crashed = false;
            try (AutoCloseable recovery = naive ? () -> { } : second.recoverEvery(Duration.ofMillis(250))) {
                workers(i -> {
                    if (i == euDownAt) {
                        progress.accept("saga-crash: eu's database is killed");
                        try {
                            euServer.kill();
                            euDownSince = System.nanoTime();
                        } finally {
                            euDown.countDown();
                        }
                    } else if (i > euDownAt) {
                        awaitUninterruptibly(euDown);
                    }
                    if (i == euUpAt) {
                        awaitRetriesRunOut();
                        euServer.restart();
                        progress.accept("saga-crash: eu's database is back");
                    }
                    transfer(second, i);
                    return true;
                });
                euServer.restart();
                int retried = naive ? 0 : settle(second);
                return result(before, retried);
            } catch (Exception e) {
                throw new IllegalStateException("saga-crash: " + e.getMessage(), e);
            }
        }

        /**
         * Keeps eu down for {@link #EU_DOWN} and, as a loaded machine drives retries late, until some saga's retries
         * ran out against it (it compensates, or is stuck): the outage the drill is about, whatever the machine's pace.
         */
        private void awaitRetriesRunOut() {
            long deadline = euDownSince + EU_DOWN_AT_MOST.toNanos();
            while (System.nanoTime() < deadline) {
                boolean longEnough = System.nanoTime() - euDownSince >= EU_DOWN.toNanos();
                if (longEnough && (naive || queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE compensating"
                                               + " OR state IN ('compensated', 'failed')") > 0)) {
                    return;
                }
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }

        private static void awaitUninterruptibly(CountDownLatch latch) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("saga-crash: interrupted", e);
            }
        }

        /** The transfer saga: debit in the payer's home, credit in the payee's, each by {@link HomeSteps}. */
        private Saga transfer(HomeSteps homes) {
            return Saga.builder("transfer")
                    .step("debit", STEP_TIMEOUT,
                          step -> homes.write(step, part(step, 0), c -> add(c, part(step, 0), -amount(step))),
                          step -> homes.write(step, part(step, 0), c -> add(c, part(step, 0), amount(step))))
                    .step("credit", STEP_TIMEOUT,
                          step -> homes.write(step, part(step, 1), c -> add(c, part(step, 1), amount(step))),
                          step -> homes.write(step, part(step, 1), c -> add(c, part(step, 1), -amount(step))))
                    .build();
        }

        private SagaCoordinator coordinator(DataSource db, Saga transfer, String owner) {
            return SagaCoordinator.builder().dataSource(db).saga(transfer).owner(owner).lease(LEASE)
                    .retry(new SagaRetry(4, Duration.ofMillis(200), Duration.ofSeconds(1))).build();
        }

        /** Runs planned transfers on {@link #WORKERS} threads until the plan ends or {@code each} says stop. */
        private void workers(Task each) {
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                Thread t = new Thread(() -> {
                    while (true) {
                        Integer queued = notStarted.poll();
                        int i = queued != null ? queued : next.getAndIncrement();
                        if (i >= count) {
                            return;
                        }
                        if (crashed) {
                            notStarted.add(i); // drawn by a process that is gone: the next one sends it
                            return;
                        }
                        if (!each.run(i)) {
                            return;
                        }
                    }
                }, "saga-crash-worker-" + w);
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("saga-crash: interrupted", e);
                }
            }
        }

        @FunctionalInterface
        private interface Task {
            boolean run(int index);
        }

        private void transfer(SagaCoordinator coordinator, int i) {
            String[] t = plan.get(i);
            String payload = String.join(",", t);
            if (naive) {
                naiveTransfer(t[0], t[1], Long.parseLong(t[2]));
                return;
            }
            try {
                SagaRecord record = coordinator.start("transfer", payload);
                sagaIds.add(record.id());
            } catch (IllegalStateException e) {
                if (!crashed) {
                    throw e;
                }
                inFlightAtCrash.incrementAndGet(); // the process died around this saga; its row says where
            }
        }

        /** Two local transactions, one in each home, as a team without sagas writes it. */
        private void naiveTransfer(String from, String to, long amount) {
            try {
                local(from, -amount);
            } catch (StepRefused e) {
                naiveRefused.incrementAndGet(); // not enough credit: nothing written, an honest refusal
                return;
            } catch (SQLException e) {
                naiveRefused.incrementAndGet(); // the payer's home is down: nothing written
                return;
            }
            if (crashed) {
                inFlightAtCrash.incrementAndGet(); // the process died between the two writes
                return;
            }
            try {
                local(to, amount);
                naiveCompleted.incrementAndGet();
            } catch (SQLException e) {
                // the credit failed: the debit stays, logged and forgotten
            }
        }

        private void local(String account, long amount) throws SQLException {
            try (Connection c = stores.get(Region.of(account.substring(0, 2))).getConnection()) {
                add(c, account, amount);
            }
        }

        /** Waits until every saga has ended, retrying the stuck ones as the operator; returns how many it retried. */
        private int settle(SagaCoordinator coordinator) throws InterruptedException {
            progress.accept("saga-crash: recovering; the operator retries stuck sagas");
            int retried = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < deadline) {
                for (SagaRecord stuck : coordinator.stuck()) {
                    try {
                        coordinator.retry(stuck.id(), "saga-crash drill", "eu's database is back");
                        retried++;
                    } catch (IllegalStateException e) {
                        // the recovery loop or another retry moved it first
                    }
                }
                if (queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE state NOT IN ('completed',"
                                  + " 'compensated')") == 0) {
                    break;
                }
                Thread.sleep(250);
            }
            return retried;
        }

        private Result result(long before, int retried) {
            long after = total();
            if (naive) {
                int naiveUnfinished = count - naiveCompleted.get() - naiveRefused.get();
                return new Result(true, count, naiveCompleted.get(), naiveRefused.get(), inFlightAtCrash.get(), 0,
                                  naiveUnfinished, before, after, 0);
            }
            int completed = (int) queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE state = 'completed'");
            int compensated = (int) queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE state = 'compensated'");
            int all = (int) queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas");
            return new Result(false, all, completed, compensated, inFlightAtCrash.get(), retried,
                              all - completed - compensated, before, after, 0);
        }

        private long total() {
            return queryLong(cn, "SELECT SUM(credit) FROM accounts")
                   + queryLong(eu, "SELECT SUM(credit) FROM accounts");
        }

        /**
         * The sessions both servers opened, read after the pools closed: a session counts once it reported its
         * statistics (within a second of going idle, or at its end), so this waits a second for the last ones.
         */
        long sessions() {
            LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
            long sum = 0;
            for (PostgresServer server : List.of(cnServer, euServer)) {
                try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.admin());
                     Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT coalesce(sum(sessions), 0) FROM pg_stat_database")) {
                    rs.next();
                    sum += rs.getLong(1);
                } catch (SQLException e) {
                    throw new IllegalStateException("sessions: " + e.getMessage(), e);
                }
            }
            return sum;
        }

        @Override
        public void close() {
            firstCoordinators.dispose();
            cn.dispose();
            eu.dispose();
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

    private static void execute(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    private static long queryLong(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /**
     * The first coordinator's database as its process sees it: {@link #kill} is the process dying, every connection
     * cut (its pool closed) and none opened after.
     */
    private static final class Killable implements DataSource {
        private final JdbcConnectionPool target;
        private final List<Connection> open = new CopyOnWriteArrayList<>();
        private volatile boolean dead;

        Killable(JdbcConnectionPool target) {
            this.target = target;
        }

        void kill() {
            dead = true;
            for (Connection c : open) {
                try {
                    c.close();
                } catch (SQLException e) {
                    // already broken: as good as closed
                }
            }
            target.dispose(); // the connections lent are closed as they come back, the idle ones now
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (dead) {
                throw new SQLException("the coordinator's process is gone");
            }
            Connection c = target.getConnection();
            open.add(c);
            if (dead) {
                c.close();
            }
            return c;
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return target.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            target.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            target.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return target.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return target.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
