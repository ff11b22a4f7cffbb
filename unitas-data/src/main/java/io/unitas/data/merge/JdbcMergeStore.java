package io.unitas.data.merge;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.crdt.OrMap;
import io.unitas.core.crdt.Siblings;
import io.unitas.core.reconcile.RepairAction;
import io.unitas.data.jdbc.UnitasSchema;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MergeStore} over JDBC. Every path that stores a state — a local write, a change arriving, a repair, a
 * resolution — locks the entity's row ({@code SELECT ... FOR UPDATE}), so one region's writers and its applier take
 * turns on an entity and the region's own writes are numbered once each under its id. A first write of a key races
 * on the primary key: the loser rolls back to a savepoint and merges into the winner's row.
 */
final class JdbcMergeStore implements MergeStore {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcMergeStore.class);
    private static final String UNIQUE_VIOLATION = "23505";
    private static final int DETAIL = 2000;

    private final Region region;
    private final DataSource dataSource;
    private final Map<String, MergedEntity<?>> entities;
    private final Map<String, ChangeHandler> handlers;
    private final Clock clock;

    JdbcMergeStore(Region region, DataSource dataSource, List<MergedEntity<?>> entities, Clock clock,
                   MeterRegistry registry) {
        this.region = Objects.requireNonNull(region, "region");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
        Map<String, MergedEntity<?>> byType = new LinkedHashMap<>();
        Map<String, ChangeHandler> byTypeHandlers = new LinkedHashMap<>();
        for (int i = 0; i < entities.size(); i++) {
            MergedEntity<?> entity = entities.get(i);
            if (byType.putIfAbsent(entity.type(), entity) != null) {
                throw new IllegalArgumentException("entities[" + i + "]: type '" + entity.type()
                                                   + "' declared twice (expected: one declaration per type)");
            }
            byTypeHandlers.put(entity.type(), handler(entity));
            Gauge.builder("unitas.data.merge.siblings.open", this, s -> s.countOpen(entity.type()))
                 .description("entities holding concurrent writes their policy kept side by side, until resolved")
                 .tag("type", entity.type())
                 .register(registry);
        }
        this.entities = java.util.Collections.unmodifiableMap(byType); // in declaration order
        this.handlers = Map.copyOf(byTypeHandlers);
        UnitasSchema.migrate(dataSource, clock);
    }

    @Override
    public Region region() {
        return region;
    }

    @Override
    public Map<String, MergedEntity<?>> entities() {
        return entities;
    }

    @Override
    public Map<String, ChangeHandler> handlers() {
        return handlers;
    }

    private <S> ChangeHandler handler(MergedEntity<S> entity) {
        return (tx, change) -> mergeIn(tx, entity, change.unit(), change.key(),
                                       entity.codec().decode(change.payload()));
    }

    /** The apply path: {@code incoming} merged into the stored state by the entity's policy. */
    <S> S mergeIn(Connection tx, MergedEntity<S> entity, String unit, String key, S incoming) throws SQLException {
        Locked locked = lock(tx, entity.type(), key);
        if (locked == null) {
            byte[] encoded = entity.codec().encode(incoming);
            if (insert(tx, entity, unit, key, incoming, encoded, false)) {
                return incoming;
            }
            locked = lock(tx, entity.type(), key); // a concurrent first write won the key: merge into it
        }
        S stored = entity.codec().decode(locked.state());
        S merged = entity.policy().merge(stored, incoming);
        byte[] encoded = entity.codec().encode(merged);
        if (!Arrays.equals(encoded, locked.state())) {
            update(tx, entity, unit, key, merged, encoded, false);
        }
        return merged;
    }

    @Override
    public <S> S write(Connection tx, Outbox outbox, MergedEntity<S> entity, String unit, String key,
                       Function<Optional<S>, S> update) throws SQLException {
        declared(entity);
        Locked locked = lock(tx, entity.type(), key);
        if (locked == null) {
            S state = Objects.requireNonNull(update.apply(Optional.empty()), "update's state");
            byte[] encoded = entity.codec().encode(state);
            if (insert(tx, entity, unit, key, state, encoded, true)) {
                outbox.append(tx, unit, entity.type(), key, encoded);
                return state;
            }
            locked = lock(tx, entity.type(), key); // a change arrived first: update what it stored
        }
        S state = Objects.requireNonNull(update.apply(Optional.of(entity.codec().decode(locked.state()))),
                                         "update's state");
        byte[] encoded = entity.codec().encode(state);
        update(tx, entity, unit, key, state, encoded, true);
        outbox.append(tx, unit, entity.type(), key, encoded);
        return state;
    }

    @Override
    public <S> Optional<S> read(MergedEntity<S> entity, String key) {
        declared(entity);
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT state FROM unitas_merge_state"
                                                       + " WHERE entity_type = ? AND entity_key = ?")) {
            ps.setString(1, entity.type());
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(entity.codec().decode(rs.getBytes(1))) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_merge_state: cannot read " + entity.type() + " " + key + ": "
                                            + e.getMessage(), e);
        }
    }

    /**
     * The repair path: this region's copy of {@code key} made consistent with the home's ({@code home}) by
     * {@link RepairAction#decide}, decided under the row's lock in a transaction of its own. Returns what it did.
     */
    <S> RepairAction repair(MergedEntity<S> entity, String unit, String key, Optional<S> home) throws SQLException {
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            try {
                Locked locked = lock(tx, entity.type(), key);
                Optional<S> here = locked == null ? Optional.empty()
                                                  : Optional.of(entity.codec().decode(locked.state()));
                RepairAction action = RepairAction.decide(entity.policy(), home, here,
                                                          locked != null && locked.writtenHere());
                switch (action) {
                    case ADOPT -> {
                        if (!insert(tx, entity, unit, key, home.get(), entity.codec().encode(home.get()), false)) {
                            tx.rollback();
                            return repair(entity, unit, key, home); // a change arrived meanwhile: decide again
                        }
                    }
                    case REPLACE -> update(tx, entity, unit, key, home.get(), entity.codec().encode(home.get()),
                                           false);
                    case MERGE -> mergeIn(tx, entity, unit, key, home.get());
                    case DELETE -> delete(tx, entity, key);
                    default -> { }
                }
                tx.commit();
                return action;
            } catch (SQLException | RuntimeException e) {
                tx.rollback();
                throw e;
            }
        }
    }

    @Override
    public List<OpenSiblings> openSiblings() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT entity_type, entity_key, unit, versions, detail, detected_at FROM unitas_siblings"
                     + " ORDER BY detected_at, entity_type, entity_key");
             ResultSet rs = ps.executeQuery()) {
            List<OpenSiblings> open = new ArrayList<>();
            while (rs.next()) {
                open.add(new OpenSiblings(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4),
                                          rs.getString(5), Instant.ofEpochMilli(rs.getLong(6))));
            }
            return List.copyOf(open);
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_siblings: cannot read: " + e.getMessage(), e);
        }
    }

    @Override
    public <S> S resolve(Outbox outbox, MergedEntity<S> entity, String key, UnaryOperator<S> resolution, String who,
                         String reason) {
        declared(entity);
        Objects.requireNonNull(who, "who");
        Objects.requireNonNull(reason, "reason");
        if (who.isBlank() || reason.isBlank()) {
            throw new IllegalArgumentException("who: '" + who + "', reason: '" + reason
                                               + "' (expected: both given, a resolution is on record)");
        }
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            try {
                Locked locked = lock(tx, entity.type(), key);
                S stored = locked == null ? null : entity.codec().decode(locked.state());
                if (stored == null || !entity.policy().isConflict(stored)) {
                    throw new IllegalArgumentException(entity.type() + " " + key
                                                       + ": no open siblings (expected: an entity listed in conflict)");
                }
                S chosen = Objects.requireNonNull(resolution.apply(stored), "resolution's state");
                if (!entity.policy().merge(chosen, stored).equals(chosen)) {
                    throw new IllegalArgumentException(entity.type() + " " + key + ": resolution " + chosen
                                                       + " has not seen every sibling of " + stored
                                                       + " (expected: a write over all of them, such as"
                                                       + " Siblings.resolve)");
                }
                if (entity.policy().isConflict(chosen)) {
                    throw new IllegalArgumentException(entity.type() + " " + key + ": resolution " + chosen
                                                       + " is still a conflict (expected: one version)");
                }
                byte[] encoded = entity.codec().encode(chosen);
                update(tx, entity, locked.unit(), key, chosen, encoded, true);
                outbox.append(tx, locked.unit(), entity.type(), key, encoded);
                try (PreparedStatement ps = tx.prepareStatement(
                        "INSERT INTO unitas_sibling_resolutions (entity_type, entity_key, at, who, reason, was, chosen)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                    ps.setString(1, entity.type());
                    ps.setString(2, key);
                    ps.setLong(3, clock.millis());
                    ps.setString(4, cut(who, 200));
                    ps.setString(5, cut(reason, DETAIL));
                    ps.setString(6, cut(String.valueOf(stored), DETAIL));
                    ps.setString(7, cut(String.valueOf(chosen), DETAIL));
                    ps.executeUpdate();
                }
                tx.commit();
                LOG.info("siblings resolved: {} {} of unit {} by {} ({}): {} over {}", entity.type(), key,
                         locked.unit(), who, reason, chosen, stored);
                return chosen;
            } catch (SQLException | RuntimeException e) {
                tx.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_merge_state: cannot resolve " + entity.type() + " " + key + ": "
                                            + e.getMessage(), e);
        }
    }

    @Override
    public List<SiblingsResolution> resolutions(String type, String key) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT at, who, reason, was, chosen FROM unitas_sibling_resolutions"
                     + " WHERE entity_type = ? AND entity_key = ? ORDER BY at")) {
            ps.setString(1, type);
            ps.setString(2, key);
            List<SiblingsResolution> list = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    list.add(new SiblingsResolution(type, key, Instant.ofEpochMilli(rs.getLong(1)), rs.getString(2),
                                                    rs.getString(3), rs.getString(4), rs.getString(5)));
                }
            }
            return List.copyOf(list);
        } catch (SQLException e) {
            throw new IllegalStateException("unitas_sibling_resolutions: cannot read: " + e.getMessage(), e);
        }
    }

    private void declared(MergedEntity<?> entity) {
        if (entities.get(entity.type()) != entity) {
            throw new IllegalArgumentException("entity " + entity.type() + ": not declared in this store"
                                               + " (expected one of " + entities.keySet() + ")");
        }
    }

    // NaN when the table cannot be read: a gap in the series, and a log line, rather than a made-up zero.
    private double countOpen(String type) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM unitas_siblings WHERE entity_type = ?")) {
            ps.setString(1, type);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            LOG.warn("unitas_siblings: cannot count open siblings of {}: {}", type, e.getMessage());
            return Double.NaN;
        }
    }

    private record Locked(String unit, byte[] state, boolean writtenHere) {}

    private static Locked lock(Connection tx, String type, String key) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("SELECT unit, state, written_here_at FROM unitas_merge_state"
                                                        + " WHERE entity_type = ? AND entity_key = ? FOR UPDATE")) {
            ps.setString(1, type);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                String unit = rs.getString(1);
                byte[] state = rs.getBytes(2);
                rs.getLong(3);
                return new Locked(unit, state, !rs.wasNull());
            }
        }
    }

    /** Inserts the first state of {@code key}; false when a concurrent transaction inserted it first. */
    private <S> boolean insert(Connection tx, MergedEntity<S> entity, String unit, String key, S state, byte[] encoded,
                               boolean writtenHere) throws SQLException {
        Savepoint before = tx.setSavepoint();
        try (PreparedStatement ps = tx.prepareStatement(
                "INSERT INTO unitas_merge_state (entity_type, entity_key, unit, state, updated_at, written_here_at)"
                + " VALUES (?, ?, ?, ?, ?, ?)")) {
            long now = clock.millis();
            ps.setString(1, entity.type());
            ps.setString(2, key);
            ps.setString(3, unit);
            ps.setBytes(4, encoded);
            ps.setLong(5, now);
            if (writtenHere) {
                ps.setLong(6, now);
            } else {
                ps.setNull(6, java.sql.Types.BIGINT);
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                tx.rollback(before);
                return false;
            }
            throw e;
        }
        tx.releaseSavepoint(before);
        stored(tx, entity, unit, key, state);
        return true;
    }

    private <S> void update(Connection tx, MergedEntity<S> entity, String unit, String key, S state, byte[] encoded,
                            boolean writtenHere) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement(
                "UPDATE unitas_merge_state SET unit = ?, state = ?, updated_at = ?"
                + (writtenHere ? ", written_here_at = ?" : "") + " WHERE entity_type = ? AND entity_key = ?")) {
            long now = clock.millis();
            int i = 1;
            ps.setString(i++, unit);
            ps.setBytes(i++, encoded);
            ps.setLong(i++, now);
            if (writtenHere) {
                ps.setLong(i++, now);
            }
            ps.setString(i++, entity.type());
            ps.setString(i, key);
            ps.executeUpdate();
        }
        stored(tx, entity, unit, key, state);
    }

    private <S> void delete(Connection tx, MergedEntity<S> entity, String key) throws SQLException {
        for (String table : List.of("unitas_merge_state", "unitas_siblings")) {
            try (PreparedStatement ps = tx.prepareStatement("DELETE FROM " + table
                                                            + " WHERE entity_type = ? AND entity_key = ?")) {
                ps.setString(1, entity.type());
                ps.setString(2, key);
                ps.executeUpdate();
            }
        }
        entity.materializer().delete(tx, key);
    }

    // After every stored state: the service's table, and the siblings listed or closed, in the same transaction.
    private <S> void stored(Connection tx, MergedEntity<S> entity, String unit, String key, S state)
            throws SQLException {
        entity.materializer().write(tx, key, state);
        if (!entity.policy().isConflict(state)) {
            try (PreparedStatement ps = tx.prepareStatement(
                    "DELETE FROM unitas_siblings WHERE entity_type = ? AND entity_key = ?")) {
                ps.setString(1, entity.type());
                ps.setString(2, key);
                ps.executeUpdate();
            }
            return;
        }
        long now = clock.millis();
        String detail = cut(String.valueOf(state), DETAIL);
        int versions = versions(state);
        int updated;
        try (PreparedStatement ps = tx.prepareStatement(
                "UPDATE unitas_siblings SET unit = ?, versions = ?, detail = ?, updated_at = ?"
                + " WHERE entity_type = ? AND entity_key = ?")) {
            ps.setString(1, unit);
            ps.setInt(2, versions);
            ps.setString(3, detail);
            ps.setLong(4, now);
            ps.setString(5, entity.type());
            ps.setString(6, key);
            updated = ps.executeUpdate();
        }
        if (updated == 0) { // the state row's lock orders this with every other writer of the key
            try (PreparedStatement ps = tx.prepareStatement(
                    "INSERT INTO unitas_siblings (entity_type, entity_key, unit, versions, detail, detected_at,"
                    + " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, entity.type());
                ps.setString(2, key);
                ps.setString(3, unit);
                ps.setInt(4, versions);
                ps.setString(5, detail);
                ps.setLong(6, now);
                ps.setLong(7, now);
                ps.executeUpdate();
            }
            LOG.warn("siblings kept: {} {} of unit {} in {}: {} concurrent writes, listed until resolved: {}",
                     entity.type(), key, unit, region, versions, detail);
        }
    }

    private static int versions(Object state) {
        if (state instanceof Siblings<?> siblings) {
            return siblings.versions().size();
        }
        if (state instanceof OrMap<?, ?> map) {
            int writes = 0;
            for (Map<?, ?> ofKey : map.entries().values()) {
                writes += ofKey.size() > 1 ? ofKey.size() : 0;
            }
            return writes;
        }
        return 2;
    }

    /**
     * Records {@code pass} as its unit's last reconciliation pass, replacing the one before, for the health agent.
     * Best effort: a row that cannot be written is logged, and the next pass writes it again.
     */
    void recordPass(DigestReport pass, java.time.Duration window) {
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            try (PreparedStatement delete = tx.prepareStatement("DELETE FROM unitas_reconcile_passes WHERE unit = ?");
                 PreparedStatement insert = tx.prepareStatement(
                         "INSERT INTO unitas_reconcile_passes (unit, home, at, window_ms, ranges_compared,"
                         + " ranges_differing, ranges_pending, keys_repaired, failure)"
                         + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                delete.setString(1, pass.unit());
                delete.executeUpdate();
                insert.setString(1, pass.unit());
                insert.setString(2, pass.home().id());
                insert.setLong(3, pass.at().toEpochMilli());
                insert.setLong(4, window.toMillis());
                insert.setInt(5, pass.rangesCompared());
                insert.setInt(6, pass.rangesDiffering());
                insert.setInt(7, pass.rangesPending());
                insert.setInt(8, pass.repaired());
                insert.setString(9, pass.failure().map(f -> cut(f, DETAIL)).orElse(null));
                insert.executeUpdate();
                tx.commit();
            } catch (SQLException e) {
                tx.rollback();
                throw e;
            }
        } catch (SQLException e) {
            LOG.warn("unitas_reconcile_passes: cannot record the pass of unit {}, written again next pass: {}",
                     pass.unit(), e.getMessage());
        }
    }

    /** Removes {@code unit}'s last pass: its home is this region now, so its copy is no longer reconciled here. */
    void forgetPass(String unit) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM unitas_reconcile_passes WHERE unit = ?")) {
            ps.setString(1, unit);
            ps.executeUpdate();
        } catch (SQLException e) {
            LOG.warn("unitas_reconcile_passes: cannot remove the pass of unit {}: {}", unit, e.getMessage());
        }
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
