package io.unitas.data.merge;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.Outbox;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Regions for merge tests, each its own database on the shared PostgreSQL primary (dropped on close): a merge store,
 * an outbox and an applier per region, and changes carried between them by hand, in whatever order a test chooses.
 */
final class MergeRegions implements AutoCloseable {

    /** One region's pieces. */
    record Node(Region region, DataSource db, MergeStore store, Outbox outbox, ChangeApplier applier,
                SimpleMeterRegistry meters) {

        /** One local write of {@code key} of {@code unit}, committed. */
        <S> S write(MergedEntity<S> entity, String unit, String key, Function<Optional<S>, S> update) {
            try (Connection tx = db.getConnection()) {
                tx.setAutoCommit(false);
                S state = store.write(tx, outbox, entity, unit, key, update);
                tx.commit();
                return state;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Every change this region's outbox holds, each unit's chained to its previous, in position order. */
        List<ChangeEnvelope> changes() {
            Map<String, Long> previous = new LinkedHashMap<>();
            List<ChangeEnvelope> chained = new ArrayList<>();
            for (ChangeEnvelope c : outbox.after(0, 10_000)) {
                chained.add(c.withPrevious(previous.getOrDefault(c.unit(), 0L)));
                previous.put(c.unit(), c.sequence());
            }
            return chained;
        }

        double gauge(String name, String type) {
            return meters.get(name).tag("type", type).gauge().value();
        }
    }

    private final List<String> created = new ArrayList<>();
    private final List<MergedEntity<?>> entities;
    private final Clock clock;

    MergeRegions(List<MergedEntity<?>> entities, Clock clock) {
        this.entities = entities;
        this.clock = clock;
    }

    static SqlServer server() {
        return PostgresCluster.shared().primary();
    }

    DataSource database(String region) {
        String name = "unitas_merge_" + region + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        server().execute("CREATE DATABASE " + name);
        created.add(name);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:" + server().port() + "/" + name);
        ds.setUser("postgres");
        return ds;
    }

    Node node(String id) {
        Region region = Region.of(id);
        DataSource db = database(id);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        MergeStore store = MergeStore.jdbc(region, db, entities, clock, meters);
        Map<String, ChangeHandler> handlers = new LinkedHashMap<>(store.handlers());
        return new Node(region, db, store, Outbox.jdbc(region, db, clock),
                        ChangeApplier.jdbc(region, db, handlers, clock, meters), meters);
    }

    @Override
    public void close() {
        created.forEach(name -> server().execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
    }
}
