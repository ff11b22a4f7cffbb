package io.unitas.data.kafka;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.ChangeTransport;
import io.unitas.data.outbox.Outbox;
import io.unitas.data.outbox.OutboxShipper;
import io.unitas.testkit.KafkaCluster;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * cn, eu and us, each its own PostgreSQL database (on the testkit's shared primary) with a probe table, an outbox, an
 * applier, a Kafka transport and a shipper looping every 20 ms, on topics of their own on the given cluster. Each
 * change a region writes is remembered, and each region's applied table counts how often each change was applied, so
 * a test counts changes lost and applied twice.
 */
final class KafkaRegions implements AutoCloseable {

    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");
    static final Region US = Region.of("us");
    static final List<Region> ALL = List.of(CN, EU, US);
    static final String PROBE = "probe";
    /** Kafka's clients log every reconnection at INFO: held here, so the level set stays. */
    private static final java.util.logging.Logger KAFKA_LOGS = java.util.logging.Logger.getLogger("org.apache.kafka");

    static {
        KAFKA_LOGS.setLevel(java.util.logging.Level.WARNING);
    }

    /**
     * Writes a change into {@code probe_applied}, counting repeats. Its amount column is an integer: a payload that is
     * not one is a schema mismatch PostgreSQL rejects (SQLSTATE 22P02).
     */
    static final ChangeHandler HANDLER = (tx, change) -> {
        try (PreparedStatement ps = tx.prepareStatement(
                "INSERT INTO probe_applied (change_id, unit, seq, amount) VALUES (?, ?, ?, CAST(? AS INT))"
                + " ON CONFLICT (change_id) DO UPDATE SET applied = probe_applied.applied + 1")) {
            ps.setString(1, change.id());
            ps.setString(2, change.unit());
            ps.setLong(3, change.sequence());
            ps.setString(4, new String(change.payload(), StandardCharsets.UTF_8));
            ps.executeUpdate();
        }
    };

    final KafkaCluster kafka;
    final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
    final Clock clock = Clock.systemUTC();
    final int partitions;
    final int replicas;
    final Map<Region, DataSource> db = new LinkedHashMap<>();
    final Map<Region, Outbox> outbox = new LinkedHashMap<>();
    final Map<Region, ChangeApplier> applier = new LinkedHashMap<>();
    final Map<Region, SimpleMeterRegistry> meters = new LinkedHashMap<>();
    final Map<Region, KafkaTransport> transport = new ConcurrentHashMap<>();
    final Map<Region, OutboxShipper> shipper = new ConcurrentHashMap<>();
    /** Every change committed, by origin. */
    final Map<Region, Set<String>> written = new ConcurrentHashMap<>();
    private final List<String> databases = new ArrayList<>();

    KafkaRegions(KafkaCluster kafka, int partitions) {
        this.kafka = kafka;
        this.partitions = partitions;
        this.replicas = kafka.size();
        for (Region region : ALL) {
            DataSource ds = newDatabase(region);
            execute(ds, "CREATE TABLE probe_source (id BIGSERIAL PRIMARY KEY, unit TEXT NOT NULL, amount TEXT)");
            execute(ds, "CREATE TABLE probe_applied (change_id TEXT PRIMARY KEY, unit TEXT NOT NULL, seq BIGINT NOT NULL,"
                        + " amount INT NOT NULL, applied INT NOT NULL DEFAULT 1, applied_order BIGSERIAL)");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            db.put(region, ds);
            meters.put(region, registry);
            outbox.put(region, Outbox.jdbc(region, ds, clock));
            applier.put(region, ChangeApplier.jdbc(region, ds, Map.of(PROBE, HANDLER), clock, registry));
            written.put(region, ConcurrentHashMap.newKeySet());
        }
    }

    /** Starts {@code region}'s transport (receiving) and its shipper, the shipper's transport wrapped by {@code wrap}. */
    void start(Region region, UnaryOperator<ChangeTransport> wrap) {
        KafkaTransport t = KafkaTransport.builder(region, kafka.bootstrapServers()).regions(ALL)
                .receiver(applier.get(region), db.get(region)).topicPrefix(prefix).partitions(partitions)
                .replicationFactor(replicas).clock(clock).registry(meters.get(region))
                .metadataRefresh(Duration.ofMillis(500)).retryStopped(Duration.ofMillis(200)).build();
        t.start();
        transport.put(region, t);
        List<Region> others = ALL.stream().filter(r -> !r.equals(region)).toList();
        OutboxShipper s = OutboxShipper.create(outbox.get(region), wrap.apply(t), others, clock, meters.get(region),
                                               Duration.ofSeconds(30));
        s.start(Duration.ofMillis(20));
        shipper.put(region, s);
    }

    void start(Region region) {
        start(region, t -> t);
    }

    void startAll() {
        ALL.forEach(this::start);
    }

    /** Stops {@code region}'s shipper and transport, as its process ending would. */
    void stop(Region region) {
        OutboxShipper s = shipper.remove(region);
        if (s != null) {
            s.close();
        }
        KafkaTransport t = transport.remove(region);
        if (t != null) {
            t.close();
        }
    }

    /** Writes {@code count} changes of {@code unit} in {@code region}, each with its row, in one transaction. */
    void write(Region region, String unit, int count) {
        List<String> ids = new ArrayList<>(count);
        try (Connection tx = db.get(region).getConnection()) {
            tx.setAutoCommit(false);
            for (int i = 0; i < count; i++) {
                ids.add(outbox.get(region).writeAndAppend(
                        tx, "INSERT INTO probe_source (unit, amount) VALUES (?, ?)", List.of(unit, String.valueOf(i)),
                        unit, PROBE, unit, String.valueOf(i).getBytes(StandardCharsets.UTF_8)).change().orElseThrow()
                        .id());
            }
            tx.commit();
            written.get(region).addAll(ids);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    ChangeEnvelope write(Region region, String unit, String amount) {
        try (Connection tx = db.get(region).getConnection()) {
            tx.setAutoCommit(false);
            ChangeEnvelope change = outbox.get(region).writeAndAppend(
                    tx, "INSERT INTO probe_source (unit, amount) VALUES (?, ?)", List.of(unit, amount), unit, PROBE,
                    unit, amount.getBytes(StandardCharsets.UTF_8)).change().orElseThrow();
            tx.commit();
            written.get(region).add(change.id());
            return change;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Changes written in other regions that {@code target} has not applied (excluding {@code except} ids). */
    Set<String> lost(Region target, Set<String> except) {
        Set<String> expected = new HashSet<>();
        written.forEach((origin, ids) -> {
            if (!origin.equals(target)) {
                expected.addAll(ids);
            }
        });
        expected.removeAll(except);
        expected.removeAll(strings(target, "SELECT change_id FROM probe_applied"));
        return expected;
    }

    Set<String> lost(Region target) {
        return lost(target, Set.of());
    }

    /** Changes {@code target} applied more than once. */
    Set<String> appliedTwice(Region target) {
        return strings(target, "SELECT change_id FROM probe_applied WHERE applied > 1");
    }

    /** Units of {@code target}'s applied table whose changes from one origin were applied out of sequence order. */
    Set<String> outOfOrder(Region target) {
        return strings(target, "SELECT DISTINCT unit FROM (SELECT unit, seq, lag(seq) OVER (PARTITION BY"
                               + " split_part(change_id, '/', 1), unit ORDER BY applied_order) AS before"
                               + " FROM probe_applied) s WHERE before > seq");
    }

    int appliedCount(Region target) {
        return strings(target, "SELECT change_id FROM probe_applied").size();
    }

    int totalWritten() {
        return written.values().stream().mapToInt(Set::size).sum();
    }

    /** Whether every region applied every change of the others (except {@code except}). */
    boolean allApplied(Set<String> except) {
        return ALL.stream().allMatch(r -> lost(r, except).isEmpty());
    }

    Set<String> strings(Region region, String sql) {
        Set<String> out = new HashSet<>();
        try (Connection c = db.get(region).getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
        return out;
    }

    private DataSource newDatabase(Region region) {
        SqlServer server = PostgresCluster.shared().primary();
        String name = "unitas_kafka_" + region.id() + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        server.execute("CREATE DATABASE " + name);
        databases.add(name);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:" + server.port() + "/" + name);
        ds.setUser("postgres");
        return ds;
    }

    static void execute(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        ALL.forEach(this::stop);
        SqlServer server = PostgresCluster.shared().primary();
        databases.forEach(name -> server.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
    }
}
