package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.saga.SagaCoordinator;
import io.unitas.data.saga.SagaRecord;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The {@code saga-crash} drill: transfers of credit between users homed in two regions ({@code cn}, {@code eu}), each
 * region with its own PostgreSQL server, while the coordinator dies mid-saga and later eu's database is killed and
 * restarted. With unitas each transfer is a saga (debit in the payer's home, credit in the payee's, each applied
 * once); a second coordinator recovers what the first left once its leases expire, retries through eu's outage, and
 * the drill, as the operator, retries the sagas left stuck when eu is back. The naive run does what a team without
 * sagas does: a local transaction in each home, one after the other.
 *
 * <p>Two variants, one schedule and one count ({@link #run} and {@link #runOnProcesses}): the coordinators run in the
 * drill's JVM (a coordinator's death is its connections cut, eu's database stopped as a crash stops it), or each as a
 * JVM of its own ({@link SagaCrashCoordinator}) that the drill {@code kill -9}s, with eu's postmaster {@code kill -9}ed.
 * The drill watches the databases: the coordinator dies once a quarter of the transfers are claimed and a saga is in
 * flight; the next is held at half of them (a gate row in cn) until eu's database is dead, which comes back at three
 * quarters, at least 4 s later and, with sagas, once some saga's retries ran out against it.
 *
 * <p>Invariant: the total credit is conserved (no money created or destroyed) and every transfer ends completed or
 * compensated.
 */
public final class SagaCrashDrill {

    private static final long START_CREDIT = 1_000;
    /** Longer than a step's retries (200 ms, 400 ms, 800 ms apart). */
    private static final Duration EU_DOWN = Duration.ofSeconds(4);
    /** Past this eu comes back even if no step's retries ran out yet. */
    private static final Duration EU_DOWN_AT_MOST = Duration.ofSeconds(60);
    /** The longest the drill waits for a stage (a coordinator JVM's start on a loaded machine included). */
    private static final Duration STAGE_AT_MOST = Duration.ofSeconds(300);
    /** A coordinator process's heap: two pools and a few hundred sagas. */
    private static final String COORDINATOR_HEAP = "-Xmx96m";
    private static final Region CN = SagaCrashTransfers.CN;
    private static final Region EU = SagaCrashTransfers.EU;
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
     * @param transfers      transfers started (unitas: sagas recorded; one the dying coordinator claimed and never
     *                       recorded is not a saga, and counted in flight)
     * @param completed      ended completed (naive: both writes made)
     * @param compensated    ended compensated (naive: refused before writing anything; a failed credit is not
     *                       undone)
     * @param inFlightAtCrash transfers the coordinator's death interrupted: claimed and not ended when it died
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

    /** Runs the drill with every coordinator in this JVM: {@code transfers} transfers drawn from {@code seed}. */
    public static Result run(boolean naive, int transfers, long seed, Consumer<String> progress) {
        return run(naive, transfers, seed, progress, null, null);
    }

    /**
     * Runs the drill with each coordinator a JVM of its own, started from {@code classPath} (the playground's jar) with
     * its properties file and log in {@code dir} ({@code dir/coordinator-1.log}, ...), and {@code kill -9}s them: the
     * first mid-saga, eu's postmaster later.
     */
    public static Result runOnProcesses(boolean naive, int transfers, long seed, Path dir, String classPath,
                                        Consumer<String> progress) {
        return run(naive, transfers, seed, progress, dir.toAbsolutePath().normalize(), classPath);
    }

    private static Result run(boolean naive, int transfers, long seed, Consumer<String> progress, Path dir,
                              String classPath) {
        if (transfers < 8) {
            throw new IllegalArgumentException("transfers: " + transfers + " (expected: >= 8)");
        }
        progress.accept("saga-crash (" + (naive ? "naive" : "unitas") + (dir == null ? "" : ", on processes")
                        + "): starting cn's and eu's PostgreSQL");
        try (PostgresServer cn = PostgresServer.start(Ports.free());
             PostgresServer eu = PostgresServer.start(Ports.free());
             Run run = new Run(naive, transfers, seed, progress, cn, eu)) {
            Coordinators coordinators = dir == null ? new InProcess(run) : new Processes(run, dir, classPath);
            Result result = run.run(coordinators);
            run.close();
            return result.counting(run.sessions());
        }
    }

    /** Where the coordinators run, and how the drill's faults reach them and eu's database. */
    private interface Coordinators {
        /** Starts a coordinator named {@code owner} that sends the transfers not claimed yet. */
        Coordinator start(String owner);

        void killEu();

        void restartEu();
    }

    /** A running coordinator. */
    private interface Coordinator {
        /** Kills it: nothing more written, nothing flushed. */
        void kill();

        /** Whether it ended on its own: its transfers sent and, with sagas, every saga ended. */
        boolean finished();

        /** Stops it if it runs; throws when it had failed. */
        void stop();
    }

    /** One run: the regions' servers and the drill's pools to them, the schedule of faults, and the count. */
    private static final class Run implements AutoCloseable {
        private final boolean naive;
        private final int count;
        private final long seed;
        private final Consumer<String> progress;
        private final PostgresServer cnServer;
        private final PostgresServer euServer;
        private final JdbcConnectionPool cn;
        private final JdbcConnectionPool eu;
        private final Map<Region, DataSource> stores;
        private final Clock clock = Clock.systemUTC();
        private boolean closed;

        Run(boolean naive, int count, long seed, Consumer<String> progress, PostgresServer cnServer,
            PostgresServer euServer) {
            this.naive = naive;
            this.count = count;
            this.seed = seed;
            this.progress = progress;
            this.cnServer = cnServer;
            this.euServer = euServer;
            this.cn = PostgresPool.create(cnServer.jdbcUrl(), "unitas-saga-crash-cn", POOL);
            this.eu = PostgresPool.create(euServer.jdbcUrl(), "unitas-saga-crash-eu", POOL);
            this.stores = Map.of(CN, cn, EU, eu);
        }

        Result run(Coordinators coordinators) {
            for (Map.Entry<Region, DataSource> store : stores.entrySet()) {
                UnitasSchema.migrate(store.getValue(), clock);
                String prefix = store.getKey().id() + "-";
                execute(store.getValue(), "CREATE TABLE accounts (id VARCHAR(20) PRIMARY KEY, credit BIGINT NOT NULL"
                                          + " CHECK (credit >= 0))");
                for (int u = 0; u < SagaCrashTransfers.USERS_PER_REGION; u++) {
                    execute(store.getValue(), "INSERT INTO accounts VALUES ('" + prefix + u + "', " + START_CREDIT
                                              + ")");
                }
            }
            execute(cn, "CREATE TABLE " + SagaCrashTransfers.CLAIMS + " (i INTEGER PRIMARY KEY, outcome VARCHAR(20))");
            execute(cn, "CREATE TABLE " + SagaCrashTransfers.GATE + " (until INTEGER NOT NULL)");
            execute(cn, "INSERT INTO " + SagaCrashTransfers.GATE + " VALUES (" + count + ")");
            long before = total();

            List<Coordinator> started = new ArrayList<>();
            try {
                // the first coordinator, until it dies mid-saga
                Coordinator first = coordinators.start("coordinator-1");
                started.add(first);
                await("a quarter of the transfers claimed and one in flight", first,
                      () -> claimed() >= count / 4 && inFlight() > 0);
                long claimedAtCrash = claimed();
                first.kill();
                int inFlightAtCrash = (int) (naive ? count("outcome IS NULL")
                                                   : claimed() - queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas"
                                                                      + " WHERE state IN ('completed', 'compensated')"));
                progress.accept("saga-crash: the coordinator died mid-saga (" + claimedAtCrash + " transfers claimed, "
                                + inFlightAtCrash + " in flight)");

                // another coordinator takes over, held at half of the transfers until eu's database is down
                execute(cn, "UPDATE " + SagaCrashTransfers.GATE + " SET until = " + count / 2);
                Coordinator second = coordinators.start("coordinator-2");
                started.add(second);
                await("half of the transfers claimed", second, () -> claimed() >= count / 2);
                long claimedAtEuDown = claimed();
                coordinators.killEu();
                long euDownSince = System.nanoTime();
                execute(cn, "UPDATE " + SagaCrashTransfers.GATE + " SET until = " + count);
                progress.accept("saga-crash: eu's database is killed (" + claimedAtEuDown + " transfers claimed)");
                awaitRetriesRunOut(euDownSince, second);
                coordinators.restartEu();
                progress.accept("saga-crash: eu's database is back (" + claimed() + " transfers claimed)");
                int retried = settle(second);
                second.stop();
                return result(before, inFlightAtCrash, retried);
            } finally {
                started.forEach(Coordinator::kill);
                coordinators.restartEu(); // a failed run's last count, and its servers' stop, need it up
            }
        }

        /**
         * Waits until three quarters of the transfers are claimed and eu has been down {@link #EU_DOWN} and, as a
         * loaded machine drives retries late, until some saga's retries ran out against it (it compensates, or is
         * stuck): the outage the drill is about, whatever the machine's pace.
         */
        private void awaitRetriesRunOut(long euDownSince, Coordinator second) {
            long deadline = euDownSince + EU_DOWN_AT_MOST.toNanos();
            while (System.nanoTime() < deadline) {
                boolean longEnough = System.nanoTime() - euDownSince >= EU_DOWN.toNanos();
                if (longEnough && (second.finished() || claimed() >= count * 3 / 4)
                    && (naive || queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE compensating"
                                               + " OR state IN ('compensated', 'failed')") > 0)) {
                    return;
                }
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }

        /** Waits for {@code condition}, read from the databases; throws when {@code coordinator} ended before. */
        private void await(String what, Coordinator coordinator, BooleanSupplier condition) {
            long deadline = System.nanoTime() + STAGE_AT_MOST.toNanos();
            while (!condition.getAsBoolean()) {
                if (coordinator.finished()) {
                    coordinator.stop();
                    throw new IllegalStateException("saga-crash: the coordinator ended before " + what);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("saga-crash: not " + what + " after " + STAGE_AT_MOST);
                }
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }
        }

        /** With sagas, a saga recorded and not ended; naive, a transfer claimed and not ended. */
        private long inFlight() {
            return naive ? count("outcome IS NULL") : SagaCrashTransfers.unended(cn);
        }

        private long claimed() {
            return queryLong(cn, "SELECT COUNT(*) FROM " + SagaCrashTransfers.CLAIMS);
        }

        private long count(String where) {
            return queryLong(cn, "SELECT COUNT(*) FROM " + SagaCrashTransfers.CLAIMS + " WHERE " + where);
        }

        /**
         * Until the second coordinator has ended (every transfer sent and every saga ended), retries the stuck sagas
         * as the operator now that eu is back; returns how many it retried.
         */
        private int settle(Coordinator second) {
            progress.accept("saga-crash: recovering; the operator retries stuck sagas");
            SagaCoordinator operator = naive ? null : SagaCrashTransfers.coordinator(cn, stores, "operator");
            int retried = 0;
            long deadline = System.nanoTime() + STAGE_AT_MOST.toNanos();
            while (!second.finished() && System.nanoTime() - deadline < 0) {
                if (!naive) {
                    for (SagaRecord stuck : operator.stuck()) {
                        try {
                            operator.retry(stuck.id(), "saga-crash drill", "eu's database is back");
                            retried++;
                        } catch (IllegalStateException e) {
                            // the recovery loop or another retry moved it first
                        }
                    }
                }
                LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
            }
            return retried;
        }

        private Result result(long before, int inFlightAtCrash, int retried) {
            long after = total();
            if (naive) {
                int completed = (int) count("outcome = 'completed'");
                int refused = (int) count("outcome = 'refused'");
                return new Result(true, count, completed, refused, inFlightAtCrash, 0, count - completed - refused,
                                  before, after, 0);
            }
            int completed = (int) queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE state = 'completed'");
            int compensated = (int) queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas WHERE state = 'compensated'");
            int all = (int) queryLong(cn, "SELECT COUNT(*) FROM unitas_sagas");
            return new Result(false, all, completed, compensated, inFlightAtCrash, retried,
                              all - completed - compensated, before, after, 0);
        }

        /**
         * Both regions' credit. eu's pool may still hold connections its restart broke (on processes nothing of the
         * drill's used it since): the first use marks them stale and fails, the second opens a new one.
         */
        private long total() {
            long sum = queryLong(cn, "SELECT SUM(credit) FROM accounts");
            try {
                return sum + queryLong(eu, "SELECT SUM(credit) FROM accounts");
            } catch (IllegalStateException e) {
                return sum + queryLong(eu, "SELECT SUM(credit) FROM accounts");
            }
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
            if (!closed) {
                closed = true;
                cn.dispose();
                eu.dispose();
            }
        }
    }

    /**
     * Every coordinator in the drill's JVM, on a thread of its own: the first through a pool of its own to cn, which
     * its death closes; eu's database stopped as a crash stops it ({@code pg_ctl stop -m immediate}).
     */
    private static final class InProcess implements Coordinators {
        private final Run run;

        InProcess(Run run) {
            this.run = run;
        }

        @Override
        public Coordinator start(String owner) {
            Killable own = new Killable(PostgresPool.create(run.cnServer.jdbcUrl(), "unitas-saga-crash-" + owner,
                                                            POOL));
            SagaCrashTransfers transfers = new SagaCrashTransfers(run.naive, run.count, run.seed, owner, run.stores,
                                                                  own, own::dead, line -> { });
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread thread = new Thread(() -> {
                try {
                    transfers.run();
                } catch (Throwable e) {
                    if (!own.dead()) {
                        failure.set(e);
                    }
                }
            }, "saga-crash-" + owner);
            thread.start();
            return new Coordinator() {
                @Override
                public void kill() {
                    own.kill();
                    join();
                }

                @Override
                public boolean finished() {
                    return !thread.isAlive();
                }

                @Override
                public void stop() {
                    join();
                    own.kill();
                    if (failure.get() != null) {
                        throw new IllegalStateException("saga-crash: " + owner + ": " + failure.get().getMessage(),
                                                        failure.get());
                    }
                }

                private void join() {
                    try {
                        thread.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("saga-crash: interrupted", e);
                    }
                }
            };
        }

        @Override
        public void killEu() {
            run.euServer.kill();
        }

        @Override
        public void restartEu() {
            run.euServer.restart();
        }
    }

    /**
     * Each coordinator a JVM of its own ({@link SagaCrashCoordinator}, the deployment's JVM settings), its file and log
     * in the drill's folder; a death is {@code kill -9}, and so is eu's database's ({@code kill -9} of its postmaster
     * and backends, as region-down does it on the deployment).
     */
    private static final class Processes implements Coordinators {
        private final Run run;
        private final Path dir;
        private final String classPath;
        private final String java = ProcessHandle.current().info().command().orElse("java");

        Processes(Run run, Path dir, String classPath) {
            this.run = run;
            this.dir = dir;
            this.classPath = classPath;
        }

        @Override
        public Coordinator start(String owner) {
            Path file = dir.resolve(owner + ".properties");
            Path log = dir.resolve(owner + ".log");
            try {
                Files.createDirectories(dir);
                Files.deleteIfExists(log); // one run's log, not the last run's too
                Files.writeString(file, String.join("\n", "# the saga-crash drill's " + owner,
                        "cn=" + run.cnServer.jdbcUrl(), "eu=" + run.euServer.jdbcUrl(), "naive=" + run.naive,
                        "transfers=" + run.count, "seed=" + run.seed, "owner=" + owner, ""));
            } catch (IOException e) {
                throw new UncheckedIOException(file + ": cannot write: " + e.getMessage(), e);
            }
            List<String> command = new ArrayList<>(DefaultProcessDeployment.jvm(java, COORDINATOR_HEAP, List.of(),
                                                                                classPath));
            command.addAll(List.of(SagaCrashCoordinator.class.getName(), file.toString()));
            ChildProcess p = new ChildProcess("saga/" + owner, command, log).start();
            run.progress.accept("saga-crash: " + owner + " (pid " + p.pid() + ", log " + log + ")");
            return new Coordinator() {
                @Override
                public void kill() {
                    p.kill();
                }

                @Override
                public boolean finished() {
                    return !p.alive();
                }

                @Override
                public void stop() {
                    if (p.alive()) {
                        p.stop();
                    } else if (p.exitValue() != 0) {
                        throw new IllegalStateException("saga-crash: " + owner + " exited " + p.exitValue() + " (log "
                                                        + log + "):\n" + p.tail(20));
                    }
                }
            };
        }

        @Override
        public void killEu() {
            PostgresRegions.killNine(run.euServer);
        }

        @Override
        public void restartEu() {
            run.euServer.restart();
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
        return SagaCrashTransfers.queryLong(ds, sql);
    }

    /**
     * A coordinator's database as its process sees it: {@link #kill} is the process dying, every connection cut (its
     * pool closed) and none opened after.
     */
    private static final class Killable implements DataSource {
        private final JdbcConnectionPool target;
        private final List<Connection> open = new CopyOnWriteArrayList<>();
        private volatile boolean dead;

        Killable(JdbcConnectionPool target) {
            this.target = target;
        }

        boolean dead() {
            return dead;
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
