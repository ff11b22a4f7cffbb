package io.unitas.data.saga;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.saga.SagaAction;
import io.unitas.core.saga.SagaEvent;
import io.unitas.core.saga.SagaMachine;
import io.unitas.core.saga.SagaRetry;
import io.unitas.core.saga.SagaState;
import io.unitas.core.saga.SagaStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link SagaCoordinator} on PostgreSQL's {@code unitas_sagas} and {@code unitas_saga_steps}. */
final class JdbcSagaCoordinator implements SagaCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcSagaCoordinator.class);
    private static final String OPEN = "('pending', 'executing', 'compensating')";
    private static final int MAX_ERROR = 2000;

    /** The saga's row, if this coordinator still holds its lease (12 parameters); renews or releases the lease. */
    private static final String UPDATE_SAGA =
            "UPDATE unitas_sagas SET state = ?, step = ?, attempts = ?, compensating = ?, next_attempt_at = ?,"
            + " last_error = COALESCE(?, last_error), owner = ?, lease_until = ?, updated_at = ?"
            + " WHERE id = ? AND owner = ? AND lease_epoch = ?";

    /** A step's row as running, for each row of the statement's {@code saga} (5 parameters). */
    private static final String RUNNING =
            "INSERT INTO unitas_saga_steps (saga_id, step_no, action, name, status, attempts, started_at)"
            + " SELECT id, ?, ?, ?, 'running', ?, ? FROM saga ON CONFLICT (saga_id, step_no, action) DO UPDATE"
            + " SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,"
            + " started_at = EXCLUDED.started_at, finished_at = NULL, error = NULL";

    private final DataSource dataSource;
    private final Map<String, Saga> sagas;
    private final String owner;
    private final Clock clock;
    private final Duration lease;
    private final SagaRetry retry;
    private final MeterRegistry registry;
    private final SagaBoundaries boundaries;
    private final AtomicInteger boundary = new AtomicInteger();
    private final AtomicInteger stuck = new AtomicInteger();
    private final AtomicLong lastRecovery = new AtomicLong();
    private final Counter recoveryFailures;
    // Daemon threads: a step that overruns its timeout is interrupted and abandoned, never awaited.
    private final ExecutorService steps = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "unitas-saga-step");
        t.setDaemon(true);
        return t;
    });

    JdbcSagaCoordinator(DataSource dataSource, Map<String, Saga> sagas, String owner, Clock clock, Duration lease,
                        SagaRetry retry, MeterRegistry registry, SagaBoundaries boundaries) {
        this.dataSource = dataSource;
        this.sagas = sagas;
        this.owner = owner;
        this.clock = clock;
        this.lease = lease;
        this.retry = retry;
        this.registry = registry;
        this.boundaries = boundaries;
        Gauge.builder("unitas.saga.stuck", stuck, AtomicInteger::get)
                .description("sagas stuck (failed), waiting for an operator's retry or resolve")
                .register(registry);
        Gauge.builder("unitas.saga.recovery.last.success", lastRecovery, AtomicLong::get)
                .description("epoch milliseconds of the last recovery round that completed (0: none yet)")
                .register(registry);
        recoveryFailures = Counter.builder("unitas.saga.recovery.failures")
                .description("recovery rounds that threw; the loop goes on").register(registry);
    }

    @Override
    public AutoCloseable recoverEvery(Duration period) {
        if (period == null || period.isZero() || period.isNegative()) {
            throw new IllegalArgumentException("period: " + period + " (expected: > 0)");
        }
        ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "unitas-saga-recovery");
            t.setDaemon(true);
            return t;
        });
        loop.scheduleWithFixedDelay(this::recoveryRound, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return loop::shutdownNow;
    }

    /** One round of the loop; never throws (a scheduled task that throws is never run again). */
    void recoveryRound() {
        try {
            recover();
            lastRecovery.set(clock.millis());
        } catch (RuntimeException | Error e) {
            recoveryFailures.increment();
            LOG.error("saga recovery round failed (the next round runs as scheduled): {}", e.toString());
        }
    }

    @Override
    public SagaRecord start(String name, String payload) {
        Saga saga = saga(name);
        String id = UUID.randomUUID().toString();
        SagaStatus started = SagaMachine.on(saga.definition(), SagaStatus.pending(), SagaEvent.START, retry);
        Begin first = begin(saga, SagaMachine.action(saga.definition(), started));
        long now = clock.millis();
        Ended ended;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true); // each write below is one statement, committed on its own
            // Recorded, started and its first step running in one statement (one round trip, one commit), under a
            // lease taken at insert (epoch 1): a crash after it leaves the first step to be run again, as a crash
            // after that step's own write would.
            try (PreparedStatement ps = c.prepareStatement(
                    "WITH saga AS (INSERT INTO unitas_sagas (id, name, payload, state, step, attempts, compensating,"
                    + " next_attempt_at, owner, lease_epoch, lease_until, created_at, updated_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?) RETURNING id)"
                    + " INSERT INTO unitas_saga_steps (saga_id, step_no, action, name, status, attempts, started_at)"
                    + " SELECT id, ?, ?, ?, 'running', ?, ? FROM saga")) {
                ps.setString(1, id);
                ps.setString(2, saga.name());
                ps.setString(3, payload);
                ps.setString(4, started.state().jsonName());
                ps.setInt(5, started.step());
                ps.setInt(6, started.attempts());
                ps.setBoolean(7, started.compensating());
                ps.setLong(8, now);
                ps.setString(9, owner);
                ps.setLong(10, now + lease.toMillis());
                ps.setLong(11, now);
                ps.setLong(12, now);
                setRunning(ps, 13, first, now);
                ps.executeUpdate();
            }
            reached("recorded, before " + first.what() + " " + id);
            ended = drive(c, saga, id, 1, payload, started, true);
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_sagas: saga " + id + " (" + name + "): " + e.getMessage(), e);
        }
        // What this coordinator wrote last is the row, unless it stopped before the end (a backoff, a lost lease).
        return ended != null ? new SagaRecord(id, saga.name(), ended.status(), Optional.ofNullable(ended.error()),
                                              Optional.empty(), Instant.ofEpochMilli(ended.at()))
                : find(id).orElseThrow();
    }

    @Override
    public int recover() {
        long now = clock.millis();
        List<String> due = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id FROM unitas_sagas WHERE state IN " + OPEN + " AND next_attempt_at <= ?"
                    + " AND (owner IS NULL OR lease_until <= ?) ORDER BY next_attempt_at LIMIT 1000")) {
                ps.setLong(1, now);
                ps.setLong(2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        due.add(rs.getString(1));
                    }
                }
            }
            int driven = 0;
            for (String id : due) {
                if (claimAndDrive(c, id)) {
                    driven++;
                }
            }
            refreshStuck(c);
            return driven;
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_sagas: cannot recover: " + e.getMessage(), e);
        }
    }

    private boolean claimAndDrive(Connection c, String id) throws SQLException {
        long now = clock.millis();
        c.setAutoCommit(false);
        String name;
        String payload;
        SagaStatus status;
        long epoch;
        try {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE unitas_sagas SET owner = ?, lease_epoch = lease_epoch + 1, lease_until = ?"
                    + " WHERE id = ? AND state IN " + OPEN + " AND next_attempt_at <= ?"
                    + " AND (owner IS NULL OR lease_until <= ?)")) {
                ps.setString(1, owner);
                ps.setLong(2, now + lease.toMillis());
                ps.setString(3, id);
                ps.setLong(4, now);
                ps.setLong(5, now);
                if (ps.executeUpdate() == 0) {
                    c.rollback();
                    return false; // another coordinator took it first
                }
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT name, payload, state, step, attempts, compensating, lease_epoch FROM unitas_sagas"
                    + " WHERE id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    name = rs.getString(1);
                    payload = rs.getString(2);
                    status = new SagaStatus(SagaState.fromJson(rs.getString(3)), rs.getInt(4), rs.getInt(5),
                                            rs.getBoolean(6));
                    epoch = rs.getLong(7);
                }
            }
            Saga saga = sagas.get(name);
            if (saga == null) {
                c.rollback();
                return false; // a saga this coordinator does not run: left to one that does
            }
            c.commit();
            reached("claimed " + id);
            c.setAutoCommit(true);
            LOG.info("saga {} ({}): recovering at {} step {} (lease epoch {})", id, name, status.state().jsonName(),
                     status.step(), epoch);
            drive(c, saga, id, epoch, payload, status, false);
            return true;
        } finally {
            if (!c.getAutoCommit()) {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    /** A saga this coordinator ended (completed or compensated) or left stuck, as its last write put it. */
    private record Ended(SagaStatus status, String error, long at) {}

    /**
     * Runs the machine's actions until the saga ends, is stuck, waits for a backoff, or the lease is lost;
     * {@code running}: the current step's row already says running (written with the saga's last write). Returns
     * how the saga ended or was left stuck, or null when this coordinator stopped before (a backoff, a lost lease).
     * The error is the last of this drive's steps: a drive that recovers a saga may return one older than the row's.
     */
    private Ended drive(Connection c, Saga saga, String id, long epoch, String payload, SagaStatus status,
                       boolean running) throws SQLException {
        String lastError = null;
        while (true) {
            SagaAction action = SagaMachine.action(saga.definition(), status);
            if (action instanceof SagaAction.Start) {
                // Only a saga recorded pending by an earlier version: start() records its sagas started.
                status = SagaMachine.on(saga.definition(), status, SagaEvent.START, retry);
                if (!write(c, id, epoch, status, null, 0, clock.millis())) {
                    return null;
                }
                reached("started " + id);
                continue;
            }
            Begin begin = begin(saga, action);
            if (begin == null) {
                return null; // ended or stuck before this drive: the write that got it there released the lease
            }
            if (!running) {
                if (begin.attempt() > 0 && notDue(c, id)) {
                    release(c, id, epoch);
                    return null; // the backoff: recover() drives it when due
                }
                if (!writeBefore(c, id, epoch, begin)) {
                    return null;
                }
                reached("before " + begin.what() + " " + id);
            }
            StepContext context = new StepContext(id, begin.name(), begin.compensation(), begin.attempt(), payload);
            Outcome outcome = run(begin.compensation() ? saga.compensation(begin.step()) : saga.execution(begin.step()),
                                  context, saga.definition().steps().get(begin.step()).timeout());
            reached("applied " + begin.what() + " " + id);
            SagaEvent event = outcome.error == null ? SagaEvent.SUCCEEDED
                    : outcome.refused ? SagaEvent.REFUSED : SagaEvent.ERROR;
            if (outcome.error != null) {
                Counter.builder("unitas.saga.step.errors").tag("saga", saga.name()).tag("step", begin.name())
                        .tag("action", begin.action())
                        .description("failed or refused attempts of saga steps").register(registry).increment();
                LOG.warn("saga {} ({}): {} attempt {}: {}", id, saga.name(), begin.what(), begin.attempt(),
                         outcome.error);
            }
            SagaStatus next = SagaMachine.on(saga.definition(), status, event, retry);
            long retryAt = next.attempts() > 0 && !next.state().equals(SagaState.FAILED)
                    ? clock.millis() + retry.delay(next.attempts()).toMillis() : clock.millis();
            String stepStatus = outcome.error == null ? "succeeded" : outcome.refused ? "refused" : "failed";
            // A step that runs now (not a retry after its backoff) is marked running in this same commit.
            Begin following = begin(saga, SagaMachine.action(saga.definition(), next));
            if (following != null && following.attempt() > 0) {
                following = null;
            }
            long now = clock.millis();
            if (!writeAfter(c, id, epoch, next, outcome.error, retryAt, begin, stepStatus, following, now)) {
                return null;
            }
            if (outcome.error != null) {
                lastError = outcome.error;
            }
            reached("after " + begin.what() + (following == null ? "" : ", before " + following.what()) + " " + id);
            if (next.state() == SagaState.FAILED) {
                LOG.error("saga {} ({}): stuck at {} after {} attempts ({}); retry or resolve it", id, saga.name(),
                          begin.what(), next.attempts(), outcome.error);
                stuck.incrementAndGet();
            }
            if (next.state().terminal()) {
                Counter.builder("unitas.saga.ended").tag("saga", saga.name()).tag("state", next.state().jsonName())
                        .description("sagas ended, by final state").register(registry).increment();
            }
            if (next.state().terminal() || next.state() == SagaState.FAILED) {
                return new Ended(next, lastError, now);
            }
            status = next;
            running = following != null;
        }
    }

    /** A step's execution or compensation about to run. */
    private record Begin(int step, boolean compensation, int attempt, String name) {

        /** The step row's action column. */
        String action() {
            return compensation ? "compensate" : "execute";
        }

        String what() {
            return action() + " " + name;
        }
    }

    /** The step {@code action} runs, or null when it runs none (ended, stuck, or not started). */
    private static Begin begin(Saga saga, SagaAction action) {
        if (action instanceof SagaAction.Execute execute) {
            return new Begin(execute.step(), false, execute.attempt(),
                             saga.definition().steps().get(execute.step()).name());
        }
        if (action instanceof SagaAction.Compensate compensate) {
            return new Begin(compensate.step(), true, compensate.attempt(),
                             saga.definition().steps().get(compensate.step()).name());
        }
        return null;
    }

    private record Outcome(String error, boolean refused) {}

    private Outcome run(StepAction action, StepContext context, Duration timeout) {
        Future<?> future = steps.submit(() -> {
            action.run(context);
            return null;
        });
        try {
            future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return new Outcome(null, false);
        } catch (TimeoutException e) {
            future.cancel(true);
            return new Outcome("timed out after " + timeout, false);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            String message = cause.getClass().getSimpleName() + ": " + cause.getMessage();
            return new Outcome(message.length() > MAX_ERROR ? message.substring(0, MAX_ERROR) : message,
                               cause instanceof StepRefused);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("saga " + context.sagaId() + ": interrupted running " + context.step(), e);
        }
    }

    private boolean notDue(Connection c, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT next_attempt_at FROM unitas_sagas WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > clock.millis();
            }
        }
    }

    /** The saga's row, if this coordinator still holds its lease; renews the lease, or releases it at the end. */
    private boolean write(Connection c, String id, long epoch, SagaStatus status, String error, long retryAt,
                          long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPDATE_SAGA)) {
            setSaga(ps, 1, id, epoch, status, error, retryAt, now);
            return ps.executeUpdate() == 1 || leaseLost(id, epoch);
        }
    }

    private void setSaga(PreparedStatement ps, int first, String id, long epoch, SagaStatus status, String error,
                         long retryAt, long now) throws SQLException {
        // An ended or stuck saga is released in the write that ends it: no coordinator has more to do.
        boolean release = status.state().terminal() || status.state() == SagaState.FAILED;
        ps.setString(first, status.state().jsonName());
        ps.setInt(first + 1, status.step());
        ps.setInt(first + 2, status.attempts());
        ps.setBoolean(first + 3, status.compensating());
        ps.setLong(first + 4, retryAt == 0 ? now : retryAt);
        ps.setString(first + 5, error);
        ps.setString(first + 6, release ? null : owner);
        ps.setLong(first + 7, release ? 0 : now + lease.toMillis());
        ps.setLong(first + 8, now);
        ps.setString(first + 9, id);
        ps.setString(first + 10, owner);
        ps.setLong(first + 11, epoch);
    }

    private static void setRunning(PreparedStatement ps, int first, Begin begin, long now) throws SQLException {
        ps.setInt(first, begin.step());
        ps.setString(first + 1, begin.action());
        ps.setString(first + 2, begin.name());
        ps.setInt(first + 3, begin.attempt() + 1);
        ps.setLong(first + 4, now);
    }

    /**
     * Before a step: the lease renewed and the step's row as running, in one statement (one round trip, one commit);
     * the row is written only if the lease is still this coordinator's.
     */
    private boolean writeBefore(Connection c, String id, long epoch, Begin begin) throws SQLException {
        long now = clock.millis();
        try (PreparedStatement ps = c.prepareStatement(
                "WITH saga AS (UPDATE unitas_sagas SET lease_until = ?, updated_at = ?"
                + " WHERE id = ? AND owner = ? AND lease_epoch = ? RETURNING id) " + RUNNING)) {
            ps.setLong(1, now + lease.toMillis());
            ps.setLong(2, now);
            ps.setString(3, id);
            ps.setString(4, owner);
            ps.setLong(5, epoch);
            setRunning(ps, 6, begin, now);
            return ps.executeUpdate() == 1 || leaseLost(id, epoch);
        }
    }

    /**
     * After a step: the saga's next status, the step's result and, when the next step runs now, its row as running,
     * in one statement (one round trip, one commit); the step rows are written only if the lease is still this
     * coordinator's. (Neither step row is the other: the next step is another step or the other direction.)
     */
    private boolean writeAfter(Connection c, String id, long epoch, SagaStatus next, String error, long retryAt,
                               Begin done, String stepStatus, Begin following, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "WITH saga AS (" + UPDATE_SAGA + " RETURNING id),"
                // The step's row by its key (an index look-up whatever the table's statistics, even in a plan made
                // when it was empty), written only if the saga's was: that is, if the lease is still ours.
                + " done AS (UPDATE unitas_saga_steps SET status = ?, finished_at = ?, error = ?"
                + " WHERE saga_id = ? AND step_no = ? AND action = ? AND EXISTS (SELECT 1 FROM saga))"
                + (following == null ? "" : ", next AS (" + RUNNING + ")")
                + " SELECT COUNT(*) FROM saga")) {
            setSaga(ps, 1, id, epoch, next, error, retryAt, now);
            ps.setString(13, stepStatus);
            ps.setLong(14, now);
            ps.setString(15, error);
            ps.setString(16, id);
            ps.setInt(17, done.step());
            ps.setString(18, done.action());
            if (following != null) {
                setRunning(ps, 19, following, now);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1 || leaseLost(id, epoch);
            }
        }
    }

    private boolean leaseLost(String id, long epoch) {
        LOG.warn("saga {}: lease lost (epoch {} of {} taken over); this coordinator stops driving it", id, epoch,
                 owner);
        return false;
    }

    private void release(Connection c, String id, long epoch) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE unitas_sagas SET owner = NULL, lease_until = 0"
                + " WHERE id = ? AND owner = ? AND lease_epoch = ?")) {
            ps.setString(1, id);
            ps.setString(2, owner);
            ps.setLong(3, epoch);
            ps.executeUpdate();
        }
    }

    @Override
    public Optional<SagaRecord> find(String id) {
        List<SagaRecord> found = select("id = ?", id);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    @Override
    public List<SagaRecord> stuck() {
        List<SagaRecord> stuckSagas = select("state = 'failed'", null);
        stuck.set(stuckSagas.size());
        return stuckSagas;
    }

    private List<SagaRecord> select(String where, String id) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, name, state, step, attempts, compensating, last_error, owner, updated_at"
                + " FROM unitas_sagas WHERE " + where + " ORDER BY updated_at, id")) {
            if (id != null) {
                ps.setString(1, id);
            }
            List<SagaRecord> records = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    records.add(new SagaRecord(rs.getString(1), rs.getString(2),
                                               new SagaStatus(SagaState.fromJson(rs.getString(3)), rs.getInt(4),
                                                              rs.getInt(5), rs.getBoolean(6)),
                                               Optional.ofNullable(rs.getString(7)),
                                               Optional.ofNullable(rs.getString(8)),
                                               Instant.ofEpochMilli(rs.getLong(9))));
                }
            }
            return records;
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_sagas: cannot read: " + e.getMessage(), e);
        }
    }

    @Override
    public SagaRecord retry(String id, String who, String why) {
        intervene(id, SagaEvent.RETRY, "retry", who, why);
        recover();
        return find(id).orElseThrow();
    }

    @Override
    public SagaRecord resolve(String id, SagaState outcome, String who, String why) {
        intervene(id, new SagaEvent.Resolve(outcome), "resolve " + outcome.jsonName(), who, why);
        return find(id).orElseThrow();
    }

    private void intervene(String id, SagaEvent event, String action, String who, String why) {
        if (who == null || who.isBlank() || why == null || why.isBlank()) {
            throw new IllegalArgumentException("saga " + id + ": " + action + " by '" + who + "' because '" + why
                                               + "' (expected: who acts and why, both recorded)");
        }
        SagaRecord record = find(id).orElseThrow(
                () -> new IllegalArgumentException("saga " + id + ": not found (expected: a saga's id)"));
        if (record.status().state() != SagaState.FAILED) {
            throw new IllegalStateException("saga " + id + ": " + record.status().state().jsonName()
                                            + " (expected: failed; only a stuck saga is retried or resolved)");
        }
        Saga saga = saga(record.name());
        SagaStatus next = SagaMachine.on(saga.definition(), record.status(), event, retry);
        long now = clock.millis();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE unitas_sagas SET state = ?, step = ?, attempts = ?, compensating = ?, next_attempt_at = ?,"
                    + " owner = NULL, lease_until = 0, updated_at = ? WHERE id = ? AND state = 'failed'")) {
                ps.setString(1, next.state().jsonName());
                ps.setInt(2, next.step());
                ps.setInt(3, next.attempts());
                ps.setBoolean(4, next.compensating());
                ps.setLong(5, now);
                ps.setLong(6, now);
                ps.setString(7, id);
                if (ps.executeUpdate() == 0) {
                    c.rollback();
                    throw new IllegalStateException("saga " + id + ": no longer failed (another operator acted)");
                }
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO unitas_saga_interventions (saga_id, at, who, action, reason)"
                    + " VALUES (?, ?, ?, ?, ?)")) {
                ps.setString(1, id);
                ps.setLong(2, now);
                ps.setString(3, who);
                ps.setString(4, action);
                ps.setString(5, why);
                ps.executeUpdate();
            }
            c.commit();
            LOG.warn("saga {} ({}): {} by {}: {}", id, record.name(), action, who, why);
            refreshStuck(c);
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_sagas: saga " + id + ": cannot " + action + ": " + e.getMessage(),
                                            e);
        }
    }

    private void refreshStuck(Connection c) throws SQLException {
        c.setAutoCommit(true);
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM unitas_sagas WHERE state = 'failed'");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            stuck.set(rs.getInt(1));
        }
    }

    private Saga saga(String name) {
        Saga saga = sagas.get(name);
        if (saga == null) {
            throw new IllegalArgumentException("saga: '" + name + "' (expected: one of " + sagas.keySet() + ")");
        }
        return saga;
    }

    private void reached(String what) {
        boundaries.reached(boundary.incrementAndGet(), what);
    }
}
