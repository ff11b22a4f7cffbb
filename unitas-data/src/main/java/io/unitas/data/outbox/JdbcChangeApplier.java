package io.unitas.data.outbox;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.internal.SqlFailure;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.outbox.ApplyResult.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ChangeApplier} over JDBC: one transaction per batch of changes (of many units) locks the (origin, unit) rows
 * of {@code unitas_applied}, checks each change against the position there (a repeat is skipped, one that does not
 * follow the last applied holds), hands the rest to the service's handlers in one batch call per entity type, and
 * moves each unit's position once. The lock makes two concurrent deliveries of one change apply it once. A change
 * refused in a batch rolls the batch back; each unit's changes are then applied one by one in a transaction of its
 * own, so those before it are applied and it alone stops its unit's stream. With a {@link MoveLog}, a change that
 * crossed a move of its unit ({@link MoveLog#crossed}) is never written by its handler: the unit's new home hands it
 * to its {@link CrossedChangeHandler}, any other region counts it applied (the new home's decision reaches it through
 * the new home's own outbox); such changes go unit by unit.
 */
final class JdbcChangeApplier implements ChangeApplier {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcChangeApplier.class);
    private static final String UNIQUE_VIOLATION = "23505";

    private final Region region;
    private final DataSource dataSource;
    private final Map<String, ChangeHandler> handlers;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Set<StreamKey> knownStreams = ConcurrentHashMap.newKeySet();
    private final Map<StreamKey, StoppedStream> stopped = new ConcurrentHashMap<>();
    private final Set<StreamKey> metered = ConcurrentHashMap.newKeySet();
    private final MoveLog moves; // null: no reconciliation
    private final Supplier<Map<String, Region>> homes;
    private final CrossedChangeHandler crossedHandler;

    JdbcChangeApplier(Region region, DataSource dataSource, Map<String, ChangeHandler> handlers, Clock clock,
                      MeterRegistry registry) {
        this(region, dataSource, handlers, clock, registry, null, null, null);
    }

    JdbcChangeApplier(Region region, DataSource dataSource, Map<String, ChangeHandler> handlers, Clock clock,
                      MeterRegistry registry, MoveLog moves, Supplier<Map<String, Region>> homes,
                      CrossedChangeHandler crossedHandler) {
        this.moves = moves;
        this.homes = homes;
        this.crossedHandler = crossedHandler;
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.handlers = Map.copyOf(handlers);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.registry = Objects.requireNonNull(registry, "registry");
        UnitasSchema.migrate(dataSource, clock);
    }

    @Override
    public Region region() {
        return region;
    }

    @Override
    public ApplyResult apply(ChangeEnvelope change) {
        return applyAll(List.of(change)).get(0);
    }

    @Override
    public List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
        Map<StreamKey, List<ChangeEnvelope>> streams = new LinkedHashMap<>();
        for (ChangeEnvelope change : changes) {
            if (change.origin().equals(region)) {
                throw new IllegalArgumentException("change " + change.id() + ": from " + region
                                                   + " itself (expected: another region's)");
            }
            streams.computeIfAbsent(new StreamKey(change.origin(), change.unit()), k -> new ArrayList<>()).add(change);
        }
        List<ApplyResult> results = new ArrayList<>(changes.size());
        String unrecorded = observeMoves();
        if (unrecorded != null) {
            streams.values().forEach(s -> results.add(new ApplyResult(Outcome.UNAVAILABLE, s.get(0), -1, unrecorded)));
            streams.clear();
        }
        if (changes.size() > 1 && !streams.isEmpty()) {
            try {
                List<ApplyResult> together = applyStreamsInOneTransaction(streams);
                if (together != null) {
                    results.addAll(together);
                    streams.clear(); // all done
                }
            } catch (SQLException e) {
                streams.values().forEach(s -> results.add(unavailableOrRejected(s.get(0), e)));
                streams.clear();
            }
            // else: a change was refused and the transaction rolled back: each stream on its own below
        }
        streams.forEach((stream, ofStream) -> {
            try {
                results.addAll(applyInOneTransaction(stream, ofStream));
            } catch (SQLException e) {
                results.add(unavailableOrRejected(ofStream.get(0), e));
            }
        });
        for (ApplyResult result : results) {
            record(new StreamKey(result.change().origin(), result.change().unit()), result);
        }
        return List.copyOf(results);
    }

    /**
     * Several units' changes in one transaction, their positions locked in one statement per origin, their entities
     * written by each handler's {@link ChangeHandler#applyAll} (one call per run of changes of one entity type, so
     * a unit's order holds across types) and their positions moved in one batch: what keeps a link's many units with a
     * change or two each from costing a transaction, or a round trip, per change. Returns null when a handler or the
     * database refused a change (rolled back, nothing applied).
     */
    private List<ApplyResult> applyStreamsInOneTransaction(Map<StreamKey, List<ChangeEnvelope>> streams)
            throws SQLException {
        for (StreamKey stream : streams.keySet()) {
            ensureStream(stream);
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                Map<StreamKey, Long> positions = lockPositions(c, streams.keySet());
                Map<StreamKey, Long> moved = new LinkedHashMap<>();
                List<ApplyResult> results = new ArrayList<>();
                List<ChangeEnvelope> toWrite = new ArrayList<>();
                for (Map.Entry<StreamKey, List<ChangeEnvelope>> stream : streams.entrySet()) {
                    long position = positions.get(stream.getKey());
                    for (ChangeEnvelope change : stream.getValue()) {
                        ApplyResult skipped = skipped(change, position);
                        if (skipped != null) {
                            results.add(skipped);
                            if (skipped.outcome() == Outcome.GAP) {
                                break;
                            }
                            continue;
                        }
                        if (!handlers.containsKey(change.entityType()) || crossed(change).isPresent()) {
                            c.rollback();
                            return null; // refused, or to reconcile: its unit alone, one by one
                        }
                        toWrite.add(change);
                        position = change.sequence();
                        results.add(new ApplyResult(Outcome.APPLIED, change, position, ""));
                        moved.put(stream.getKey(), position);
                    }
                }
                if (moved.isEmpty()) {
                    c.rollback();
                    return results;
                }
                if (!writeInBatches(c, toWrite)) {
                    c.rollback();
                    return null;
                }
                try (PreparedStatement ps = c.prepareStatement("UPDATE unitas_applied SET applied_seq = ?,"
                                                               + " applied_at = ? WHERE origin = ? AND unit = ?")) {
                    long now = clock.millis();
                    for (Map.Entry<StreamKey, Long> stream : moved.entrySet()) {
                        ps.setLong(1, stream.getValue());
                        ps.setLong(2, now);
                        ps.setString(3, stream.getKey().origin().id());
                        ps.setString(4, stream.getKey().unit());
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                c.commit();
                return results;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Hands {@code changes} to their handlers' batch method, one call per run of one entity type in their order.
     * Returns false when a handler or the database refused one (the caller rolls back); an unreachable or read-only
     * database throws.
     */
    private boolean writeInBatches(Connection c, List<ChangeEnvelope> changes) throws SQLException {
        int from = 0;
        while (from < changes.size()) {
            String type = changes.get(from).entityType();
            int to = from + 1;
            while (to < changes.size() && changes.get(to).entityType().equals(type)) {
                to++;
            }
            try {
                handlers.get(type).applyAll(c, changes.subList(from, to));
            } catch (RuntimeException e) {
                LOG.debug("batch of {} '{}' changes refused, applying unit by unit: {}", to - from, type, e.toString());
                return false;
            } catch (SQLException e) {
                SQLException cause = firstWithState(e);
                if (SqlFailure.of(cause) != SqlFailure.REJECTED) {
                    throw cause;
                }
                LOG.debug("batch of {} '{}' changes refused, applying unit by unit: SQLSTATE {}: {}", to - from, type,
                          cause.getSQLState(), cause.getMessage());
                return false;
            }
            from = to;
        }
        return true;
    }

    /** {@code e}, or the first exception chained to it with a SQLSTATE (a batch's failure may carry none itself). */
    private static SQLException firstWithState(SQLException e) {
        for (SQLException at = e; at != null; at = at.getNextException()) {
            if (at.getSQLState() != null) {
                return at;
            }
        }
        return e;
    }

    /** Locks the position rows of {@code streams}, one statement per origin, in unit order (no deadlock). */
    private Map<StreamKey, Long> lockPositions(Connection c, Set<StreamKey> streams) throws SQLException {
        Map<Region, List<String>> byOrigin = new LinkedHashMap<>();
        streams.forEach(s -> byOrigin.computeIfAbsent(s.origin(), o -> new ArrayList<>()).add(s.unit()));
        Map<StreamKey, Long> positions = new HashMap<>();
        for (Map.Entry<Region, List<String>> origin : byOrigin.entrySet()) {
            String marks = String.join(", ", java.util.Collections.nCopies(origin.getValue().size(), "?"));
            try (PreparedStatement ps = c.prepareStatement("SELECT unit, applied_seq FROM unitas_applied WHERE origin"
                                                           + " = ? AND unit IN (" + marks + ") ORDER BY unit"
                                                           + " FOR UPDATE")) {
                ps.setString(1, origin.getKey().id());
                for (int i = 0; i < origin.getValue().size(); i++) {
                    ps.setString(i + 2, origin.getValue().get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        positions.put(new StreamKey(origin.getKey(), rs.getString(1)), rs.getLong(2));
                    }
                }
            }
        }
        for (StreamKey stream : streams) {
            if (!positions.containsKey(stream)) {
                knownStreams.remove(stream); // the table was emptied behind us: create the row again next time
                throw new SQLException("unitas_applied: no row for " + stream, "08000");
            }
        }
        return positions;
    }

    private ApplyResult unavailableOrRejected(ChangeEnvelope change, SQLException e) {
        return switch (SqlFailure.of(e)) {
            case READ_ONLY -> new ApplyResult(Outcome.UNAVAILABLE, change, -1, region + ": database is read-only");
            case UNREACHABLE -> new ApplyResult(Outcome.UNAVAILABLE, change, -1,
                                                region + ": database unreachable: " + e.getMessage());
            case REJECTED -> new ApplyResult(Outcome.REJECTED, change, -1,
                                             "unitas_applied: SQLSTATE " + e.getSQLState() + ": " + e.getMessage());
        };
    }

    /**
     * Applies {@code changes} in one transaction: those already applied are skipped, the next ones written while each
     * follows the last, the position moved once. When the handler or the database refuses one, the transaction rolls
     * back and those before it are applied again without it: the refused change is the last result.
     */
    private List<ApplyResult> applyInOneTransaction(StreamKey stream, List<ChangeEnvelope> changes)
            throws SQLException {
        ensureStream(stream);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                long start = lockPosition(c, stream);
                long position = start;
                List<ApplyResult> results = new ArrayList<>(changes.size());
                for (int at = 0; at < changes.size(); at++) {
                    ChangeEnvelope change = changes.get(at);
                    ApplyResult skipped = skipped(change, position);
                    if (skipped != null) {
                        results.add(skipped);
                        if (skipped.outcome() == Outcome.GAP) {
                            break;
                        }
                        continue;
                    }
                    ApplyResult refused = refusal(c, change, position);
                    if (refused != null) {
                        c.rollback();
                        List<ApplyResult> before = at == 0 ? List.of()
                                : applyInOneTransaction(stream, changes.subList(0, at));
                        List<ApplyResult> all = new ArrayList<>(before);
                        if (before.stream().allMatch(ApplyResult::consumed)) {
                            all.add(refused);
                        }
                        return all;
                    }
                    position = change.sequence();
                    results.add(new ApplyResult(Outcome.APPLIED, change, position, ""));
                }
                if (position != start) {
                    try (PreparedStatement ps = c.prepareStatement("UPDATE unitas_applied SET applied_seq = ?,"
                                                                   + " applied_at = ? WHERE origin = ? AND unit = ?")) {
                        ps.setLong(1, position);
                        ps.setLong(2, clock.millis());
                        ps.setString(3, stream.origin().id());
                        ps.setString(4, stream.unit());
                        ps.executeUpdate();
                    }
                    c.commit();
                } else {
                    c.rollback();
                }
                return results;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * Records the moves of the live map before a batch, so that a change crossing one is known as such when it is
     * applied; returns why they could not be recorded, or null.
     */
    private String observeMoves() {
        if (moves == null) {
            return null;
        }
        try {
            moves.observeAll(homes.get());
            return null;
        } catch (RuntimeException e) {
            return region + ": cannot record the units' moves before applying: " + e.getMessage();
        }
    }

    private java.util.Optional<RecordedMove> crossed(ChangeEnvelope change) {
        return moves == null ? java.util.Optional.empty() : moves.crossed(change);
    }

    /**
     * Runs the handler of {@code change} (or, for a change that crossed a move, the new home's reconciler, or nothing
     * elsewhere); returns why it was refused, or null when it is done.
     */
    private ApplyResult refusal(Connection c, ChangeEnvelope change, long position) throws SQLException {
        java.util.Optional<RecordedMove> crossed = crossed(change);
        if (crossed.isPresent()) {
            return reconcile(c, change, position, crossed.get());
        }
        ChangeHandler handler = handlers.get(change.entityType());
        if (handler == null) {
            return new ApplyResult(Outcome.REJECTED, change, position, "no handler for entity type '"
                                   + change.entityType() + "' (expected one of " + handlers.keySet() + ")");
        }
        try {
            handler.apply(c, change);
            return null;
        } catch (RuntimeException e) {
            return new ApplyResult(Outcome.REJECTED, change, position, "handler of '" + change.entityType()
                                   + "' failed: " + e);
        } catch (SQLException e) {
            if (SqlFailure.of(e) != SqlFailure.REJECTED) {
                throw e;
            }
            return new ApplyResult(Outcome.REJECTED, change, position,
                                   "SQLSTATE " + e.getSQLState() + ": " + e.getMessage());
        }
    }

    /** A change that crossed {@code move}: decided here when this is its new home, passed over elsewhere. */
    private ApplyResult reconcile(Connection c, ChangeEnvelope change, long position, RecordedMove move)
            throws SQLException {
        if (!region.equals(move.to())) {
            LOG.debug("{}: change {} crossed the move of unit {} from {} to {}: left to {}", region, change.id(),
                      move.unit(), move.from(), move.to(), move.to());
            return null;
        }
        try {
            crossedHandler.reconcile(c, change, move);
            return null;
        } catch (RuntimeException e) {
            return new ApplyResult(Outcome.REJECTED, change, position, "reconciliation of '" + change.entityType()
                                   + "' " + change.key() + " (crossed the move of unit " + move.unit() + " from "
                                   + move.from() + " to " + move.to() + ") failed: " + e);
        } catch (SQLException e) {
            if (SqlFailure.of(e) != SqlFailure.REJECTED) {
                throw e;
            }
            return new ApplyResult(Outcome.REJECTED, change, position, "reconciliation of '" + change.entityType()
                                   + "' " + change.key() + ": SQLSTATE " + e.getSQLState() + ": " + e.getMessage());
        }
    }

    private static ApplyResult skipped(ChangeEnvelope change, long position) {
        if (change.sequence() <= position) {
            return new ApplyResult(Outcome.DUPLICATE, change, position, "");
        }
        if (change.previous() != position) {
            return new ApplyResult(Outcome.GAP, change, position, "change " + change.id() + " follows #"
                                   + change.previous() + ", but #" + position + " is the last applied here"
                                   + " (expected: #" + change.previous() + " first)");
        }
        return null;
    }

    private long lockPosition(Connection c, StreamKey stream) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT applied_seq FROM unitas_applied"
                                                       + " WHERE origin = ? AND unit = ? FOR UPDATE")) {
            ps.setString(1, stream.origin().id());
            ps.setString(2, stream.unit());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    knownStreams.remove(stream); // the table was emptied behind us: create the row again next time
                    throw new SQLException("unitas_applied: no row for " + stream, "08000");
                }
                return rs.getLong(1);
            }
        }
    }

    /** Creates the stream's position row at 0 in its own transaction, so applying never races on its key. */
    private void ensureStream(StreamKey stream) throws SQLException {
        if (knownStreams.contains(stream)) {
            return;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO unitas_applied (origin, unit, applied_seq,"
                                                           + " applied_at) VALUES (?, ?, 0, ?)")) {
                ps.setString(1, stream.origin().id());
                ps.setString(2, stream.unit());
                ps.setLong(3, clock.millis());
                ps.executeUpdate();
            } catch (SQLException e) {
                if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    throw e;
                }
            }
        }
        knownStreams.add(stream);
    }

    /** Keeps the stopped streams, their meter and their log lines in step with what just happened. */
    private void record(StreamKey stream, ApplyResult result) {
        if (result.stopsStream()) {
            long position = result.position() >= 0 ? result.position() : result.change().sequence() - 1;
            StoppedStream previous = stopped.get(stream);
            long refused = result.change().sequence();
            if (previous == null || previous.position() != position || previous.refused() != refused
                || !previous.reason().equals(result.reason())) {
                StoppedStream now = new StoppedStream(stream.origin(), region, stream.unit(), position, refused,
                                                      result.reason(), clock.instant());
                stopped.put(stream, now);
                meter(stream);
                LOG.error("replication stopped: {}", now.describe());
            }
        } else if (result.consumed() && stopped.remove(stream) != null) {
            LOG.info("replication of unit {} from {} resumed in {} at position {}", stream.unit(), stream.origin(),
                     region, result.position());
        }
    }

    private void meter(StreamKey stream) {
        if (metered.add(stream)) {
            Gauge.builder("unitas.data.unit.stopped", stopped, s -> s.containsKey(stream) ? 1 : 0)
                    .description("1 while the unit's changes from origin cannot be applied in target")
                    .tags("origin", stream.origin().id(), "unit", stream.unit(), "target", region.id())
                    .register(registry);
        }
    }

    @Override
    public Map<String, Long> positions(Region origin) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("SELECT unit, applied_seq FROM unitas_applied"
                                                           + " WHERE origin = ? ORDER BY unit")) {
                ps.setString(1, origin.id());
                try (ResultSet rs = ps.executeQuery()) {
                    Map<String, Long> positions = new LinkedHashMap<>();
                    while (rs.next()) {
                        positions.put(rs.getString(1), rs.getLong(2));
                    }
                    return positions;
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(region + ": cannot read applied positions: " + e.getMessage(), e);
        }
    }

    @Override
    public List<StoppedStream> stopped() {
        List<StoppedStream> now = new ArrayList<>(stopped.values());
        now.sort(Comparator.comparing(StoppedStream::since).thenComparing(StoppedStream::unit));
        return List.copyOf(now);
    }

    @Override
    public String toString() {
        return "ChangeApplier{" + region + ", handlers " + handlers.keySet() + '}';
    }

    /** One stream of changes: a unit's, from one origin. */
    private record StreamKey(Region origin, String unit) {
        @Override
        public String toString() {
            return origin + "/" + unit;
        }
    }
}
