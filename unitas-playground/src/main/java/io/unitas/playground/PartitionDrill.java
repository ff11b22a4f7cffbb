package io.unitas.playground;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.OrSet;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.Siblings;
import io.unitas.core.reconcile.RepairAction;
import io.unitas.data.kafka.KafkaTransport;
import io.unitas.data.merge.Codec;
import io.unitas.data.merge.DigestReconciler;
import io.unitas.data.merge.DigestReport;
import io.unitas.data.merge.MergeDigests;
import io.unitas.data.merge.MergeStore;
import io.unitas.data.merge.MergedEntity;
import io.unitas.data.outbox.ApplyResult;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeTransport;
import io.unitas.data.outbox.InProcessTransport;
import io.unitas.data.outbox.Outbox;
import io.unitas.data.outbox.OutboxShipper;
import io.unitas.data.outbox.StoppedStream;
import io.unitas.testkit.KafkaCluster;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.postgresql.ds.PGConnectionPoolDataSource;

/**
 * {@code unitas drill partition}: cn and eu cannot reach each other for a while. Each region keeps its merged entities
 * in its own PostgreSQL database and replicates them through the outbox, in process or through Kafka. When the
 * partition starts, cn's unit fails over to eu; cn, cut off, keeps taking its users' writes too, so both sides write
 * the same users' carts (an OR-set), points (a PN-counter), orders (an OR-set of order ids) and delivery address (kept
 * as siblings when written on both sides: a conflict no policy can merge). Meanwhile us's copy of eu's unit drifts
 * behind replication's back (rows deleted, counters lowered). Then the partition heals.
 *
 * <p>Invariants: every acknowledged cart item, increment and order is in every region after the merge; every address
 * written on both sides is listed among the siblings, not lost; the regions' copies converge (identical digests of
 * every unit and entity type) within the reconciliation window, and the fraction of injected divergences repaired is
 * stated. The naive setup writes the same workload as whole values whose last writer wins, without reconciliation.
 */
public final class PartitionDrill {

    /** The scenario's name on the command line. */
    public static final String ID = "partition";

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final List<Region> REGIONS = List.of(CN, EU, US);
    private static final int RANGES = 64;
    /**
     * Connections each region's pool keeps open (its writer, its shipper, the deliveries into it, its reconciler): a
     * statement takes one of them rather than a new session, whose server process would start and fill its caches.
     */
    static final int POOL = 10;
    private static final List<String> TYPES = List.of("cart", "points", "orders", "address");

    /**
     * What a run counted; {@code sessions} is how many sessions its three databases' server opened for it
     * ({@code pg_stat_database.sessions}), each a server process started and its caches filled.
     */
    public record Result(boolean naive, ReplicationKind replication, int cartAdds, int cartLost, long increments,
                         long incrementsLost, int orders, int ordersLost, int conflicts, int conflictsListed,
                         int injected, int repaired, long convergedMillis, long windowMillis, long partitionMillis,
                         long sessions) {

        /** Whether every invariant held: nothing lost, every conflict listed, converged in the window, all repaired. */
        public boolean holds() {
            return cartLost == 0 && incrementsLost == 0 && ordersLost == 0 && conflictsListed == conflicts
                   && convergedMillis >= 0 && convergedMillis <= windowMillis && repaired == injected;
        }

        /** The fraction of injected divergences repaired, 0 to 1. */
        public double repairedFraction() {
            return injected == 0 ? 1 : (double) repaired / injected;
        }
    }

    /** The settings of a run. */
    public record Settings(int usersPerUnit, int writesPerUser, Duration window, Duration reconcileEvery) {

        /** The defaults of {@code unitas drill partition}: 20 users per unit, 5 writes each, a 12 s window. */
        public static Settings defaults() {
            return new Settings(20, 5, Duration.ofSeconds(12), Duration.ofSeconds(2));
        }
    }

    private PartitionDrill() {}

    /**
     * Runs the drill once, on a PostgreSQL server of its own (and, for {@link ReplicationKind#KAFKA}, a Kafka broker
     * of its own), and returns what it counted.
     *
     * @throws IllegalStateException when PostgreSQL is not installed
     */
    public static Result run(boolean naive, ReplicationKind replication, Settings settings, Consumer<String> progress) {
        if (!PostgresServer.missing().isEmpty()) {
            throw new IllegalStateException(PostgresServer.missing());
        }
        try (PostgresServer server = PostgresServer.start(Ports.free());
             KafkaCluster kafka = replication == ReplicationKind.KAFKA ? KafkaCluster.start(1, false) : null;
             Run run = new Run(naive, replication, settings, server, kafka, progress)) {
            return run.drill();
        }
    }

    /** A table of runs side by side, one column each. */
    public static String table(List<Result> results) {
        StringBuilder s = new StringBuilder();
        row(s, "", results, r -> (r.naive() ? "naive" : "unitas") + " (" + r.replication().id() + ")");
        row(s, "partition (ms)", results, r -> String.valueOf(r.partitionMillis()));
        row(s, "PostgreSQL sessions", results, r -> String.valueOf(r.sessions()));
        row(s, "cart items lost", results, r -> r.cartLost() + " of " + r.cartAdds());
        row(s, "increments lost", results, r -> r.incrementsLost() + " of " + r.increments());
        row(s, "orders lost", results, r -> r.ordersLost() + " of " + r.orders());
        row(s, "conflicts listed", results, r -> r.conflictsListed() + " of " + r.conflicts());
        row(s, "divergences repaired", results, r -> String.format(Locale.ROOT, "%d of %d (%.1f%%)", r.repaired(),
                                                                      r.injected(), 100 * r.repairedFraction()));
        row(s, "converged after heal", results, r -> r.convergedMillis() < 0 ? "no"
                : String.format(Locale.ROOT, "%.1f s", r.convergedMillis() / 1000.0));
        row(s, "reconciliation window", results, r -> r.windowMillis() / 1000 + " s");
        row(s, "invariants", results, r -> r.holds() ? "hold" : "BROKEN");
        return s.toString();
    }

    private static void row(StringBuilder s, String label, List<Result> results, Function<Result, String> cell) {
        s.append(String.format(Locale.ROOT, "%-24s", label));
        for (Result r : results) {
            s.append(String.format(Locale.ROOT, "%-26s", cell.apply(r)));
        }
        s.append(System.lineSeparator());
    }

    /** The entities of one setup: merged by policy (unitas), or whole values whose last writer wins (naive). */
    private interface Entities {
        List<MergedEntity<?>> all();

        void addToCart(Node n, String unit, String user, String item);

        void increment(Node n, String unit, String user);

        void order(Node n, String unit, String user, String orderId);

        void address(Node n, String unit, String user, String address);

        Set<String> cart(Node n, String user);

        long points(Node n, String user);

        Set<String> orders(Node n, String user);

        List<String> addresses(Node n, String user);
    }

    /** Policies as declared: OR-sets, a PN-counter, siblings for what cannot merge. */
    private static final class Merged implements Entities {
        final MergedEntity<OrSet<String>> cart = MergedEntity.of("cart", MergePolicy.orSet(),
                                                                 Codec.orSet(Codec.utf8()));
        final MergedEntity<PnCounter> points = MergedEntity.of("points", MergePolicy.counter(), Codec.counter());
        final MergedEntity<OrSet<String>> orders = MergedEntity.of("orders", MergePolicy.orSet(),
                                                                   Codec.orSet(Codec.utf8()));
        final MergedEntity<Siblings<String>> address = MergedEntity.of("address", MergePolicy.siblings(),
                                                                       Codec.siblings(Codec.utf8()));

        @Override
        public List<MergedEntity<?>> all() {
            return List.of(cart, points, orders, address);
        }

        @Override
        public void addToCart(Node n, String unit, String user, String item) {
            n.write(cart, unit, user, s -> s.orElse(OrSet.empty()).add(n.region.id(), item));
        }

        @Override
        public void increment(Node n, String unit, String user) {
            n.write(points, unit, user, s -> s.orElse(PnCounter.zero()).add(n.region.id(), 1));
        }

        @Override
        public void order(Node n, String unit, String user, String orderId) {
            n.write(orders, unit, user, s -> s.orElse(OrSet.empty()).add(n.region.id(), orderId));
        }

        @Override
        public void address(Node n, String unit, String user, String value) {
            n.write(address, unit, user, s -> s.orElse(Siblings.empty()).write(n.region.id(), value));
        }

        @Override
        public Set<String> cart(Node n, String user) {
            return n.store.read(cart, user).map(OrSet::elements).orElse(Set.of());
        }

        @Override
        public long points(Node n, String user) {
            return n.store.read(points, user).map(PnCounter::value).orElse(0L);
        }

        @Override
        public Set<String> orders(Node n, String user) {
            return n.store.read(orders, user).map(OrSet::elements).orElse(Set.of());
        }

        @Override
        public List<String> addresses(Node n, String user) {
            return n.store.read(address, user).map(Siblings::values).orElse(List.of());
        }
    }

    /** The naive setup: each entity one value, replaced by each write, the last writer winning on arrival. */
    private static final class Overwritten implements Entities {
        final Map<String, MergedEntity<LwwRegister<String>>> byType = new LinkedHashMap<>();

        Overwritten() {
            for (String type : TYPES) {
                byType.put(type, MergedEntity.of(type, MergePolicy.lastWriterWins(), Codec.lww(Codec.utf8())));
            }
        }

        @Override
        public List<MergedEntity<?>> all() {
            return List.copyOf(byType.values());
        }

        private void replace(Node n, String type, String unit, String user, Function<String, String> update) {
            n.write(byType.get(type), unit, user, s -> {
                long now = n.clock.millis();
                return s.map(r -> r.write(n.region.id(), update.apply(r.value()), now))
                        .orElseGet(() -> LwwRegister.initial(n.region.id(), update.apply(""), now));
            });
        }

        private static String plus(String csv, String element) {
            Set<String> s = split(csv);
            s.add(element);
            return String.join(",", s);
        }

        private static Set<String> split(String csv) {
            return csv.isEmpty() ? new TreeSet<>() : new TreeSet<>(Arrays.asList(csv.split(",")));
        }

        private String read(Node n, String type, String user) {
            return n.store.read(byType.get(type), user).map(LwwRegister::value).orElse("");
        }

        @Override
        public void addToCart(Node n, String unit, String user, String item) {
            replace(n, "cart", unit, user, csv -> plus(csv, item));
        }

        @Override
        public void increment(Node n, String unit, String user) {
            replace(n, "points", unit, user, v -> String.valueOf((v.isEmpty() ? 0 : Long.parseLong(v)) + 1));
        }

        @Override
        public void order(Node n, String unit, String user, String orderId) {
            replace(n, "orders", unit, user, csv -> plus(csv, orderId));
        }

        @Override
        public void address(Node n, String unit, String user, String value) {
            replace(n, "address", unit, user, v -> value);
        }

        @Override
        public Set<String> cart(Node n, String user) {
            return split(read(n, "cart", user));
        }

        @Override
        public long points(Node n, String user) {
            String v = read(n, "points", user);
            return v.isEmpty() ? 0 : Long.parseLong(v);
        }

        @Override
        public Set<String> orders(Node n, String user) {
            return split(read(n, "orders", user));
        }

        @Override
        public List<String> addresses(Node n, String user) {
            String v = read(n, "address", user);
            return v.isEmpty() ? List.of() : List.of(v);
        }
    }

    /** One region: its database, merged entities, outbox, applier behind the partition's gate, and shipper. */
    private static final class Node {
        final Region region;
        final DataSource db;
        final Clock clock;
        final MergeStore store;
        final Outbox outbox;
        final GatedApplier applier;
        OutboxShipper shipper;
        ChangeTransport transport;

        Node(Region region, DataSource db, List<MergedEntity<?>> entities, Clock clock, Set<List<Region>> cut) {
            this.region = region;
            this.db = db;
            this.clock = clock;
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            this.store = MergeStore.jdbc(region, db, entities, clock, meters);
            this.outbox = Outbox.jdbc(region, db, clock);
            this.applier = new GatedApplier(ChangeApplier.jdbc(region, db, store.handlers(), clock, meters), cut);
        }

        /** One acknowledged write: committed here, with its change in the outbox. */
        <S> void write(MergedEntity<S> entity, String unit, String key, Function<Optional<S>, S> update) {
            try (Connection tx = db.getConnection()) {
                tx.setAutoCommit(false);
                store.write(tx, outbox, entity, unit, key, update);
                tx.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(region + ": write of " + key + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * The partition as the receiving side sees it: a change from a region it cannot reach is not taken (unavailable),
     * so the transport holds it and offers it again once the partition heals.
     */
    private static final class GatedApplier implements ChangeApplier {
        private final ChangeApplier delegate;
        private final Set<List<Region>> cut;

        GatedApplier(ChangeApplier delegate, Set<List<Region>> cut) {
            this.delegate = delegate;
            this.cut = cut;
        }

        private boolean cut(ChangeEnvelope change) {
            return cut.contains(List.of(change.origin(), delegate.region()));
        }

        @Override
        public Region region() {
            return delegate.region();
        }

        @Override
        public ApplyResult apply(ChangeEnvelope change) {
            return cut(change) ? new ApplyResult(ApplyResult.Outcome.UNAVAILABLE, change, -1, "partitioned from "
                                                 + change.origin()) : delegate.apply(change);
        }

        @Override
        public List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
            List<ChangeEnvelope> through = new ArrayList<>();
            List<ApplyResult> results = new ArrayList<>();
            for (ChangeEnvelope change : changes) {
                if (cut(change)) {
                    results.add(apply(change));
                } else {
                    through.add(change);
                }
            }
            if (!through.isEmpty()) {
                results.addAll(delegate.applyAll(through));
            }
            return results;
        }

        @Override
        public Map<String, Long> positions(Region origin) {
            return delegate.positions(origin);
        }

        @Override
        public List<StoppedStream> stopped() {
            return delegate.stopped();
        }
    }

    /** One run: its databases, transport and nodes, closed together. */
    private static final class Run implements AutoCloseable {
        private final boolean naive;
        private final ReplicationKind replication;
        private final Settings settings;
        private final PostgresServer server;
        private final Consumer<String> progress;
        private final Clock clock = Clock.systemUTC();
        private final Entities entities;
        private final Set<List<Region>> cut = ConcurrentHashMap.newKeySet();
        private final Map<Region, Node> nodes = new LinkedHashMap<>();
        private final Map<String, Region> homes = new ConcurrentHashMap<>();
        private final List<ChangeTransport> transports = new ArrayList<>();
        private final List<JdbcConnectionPool> pools = new ArrayList<>();
        private final long started = System.nanoTime();
        private final String run = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        // What was acknowledged: per user, the items, orders and increments the clients were told succeeded.
        private final Map<String, Set<String>> cartAdds = new LinkedHashMap<>();
        private final Map<String, Set<String>> ordersPlaced = new LinkedHashMap<>();
        private final Map<String, Long> increments = new LinkedHashMap<>();
        private final Map<String, Set<String>> conflicting = new LinkedHashMap<>();

        Run(boolean naive, ReplicationKind replication, Settings settings, PostgresServer server, KafkaCluster kafka,
            Consumer<String> progress) {
            this.naive = naive;
            this.replication = replication;
            this.settings = settings;
            this.server = server;
            this.progress = progress;
            this.entities = naive ? new Overwritten() : new Merged();
            for (Region r : REGIONS) {
                homes.put(unit(r), r);
            }
            InProcessTransport inProcess = kafka == null ? InProcessTransport.create() : null;
            if (inProcess != null) {
                transports.add(inProcess);
            }
            for (Region r : REGIONS) {
                String name = "partition_" + run + "_" + r.id();
                server.execute("CREATE DATABASE " + name);
                PGConnectionPoolDataSource source = new PGConnectionPoolDataSource();
                source.setUrl("jdbc:postgresql://127.0.0.1:" + server.port() + "/" + name);
                source.setUser("postgres");
                source.setApplicationName("unitas-partition-" + r.id());
                JdbcConnectionPool ds = JdbcConnectionPool.create(source);
                ds.setMaxConnections(POOL);
                pools.add(ds);
                Node node = new Node(r, ds, entities.all(), clock, cut);
                if (inProcess != null) {
                    inProcess.receiver(node.applier);
                    node.transport = inProcess;
                } else {
                    KafkaTransport t = KafkaTransport.builder(r, kafka.bootstrapServers()).regions(REGIONS)
                            .topicPrefix("partition" + run + ".").partitions(4).clock(clock)
                            .retryStopped(Duration.ofMillis(50)).receiver(node.applier, ds).build();
                    t.start();
                    transports.add(t);
                    node.transport = t;
                }
                node.shipper = OutboxShipper.create(node.outbox, node.transport,
                                                    REGIONS.stream().filter(o -> !o.equals(r)).toList(), clock,
                                                    new SimpleMeterRegistry(), Duration.ofSeconds(30));
                node.shipper.start(Duration.ofMillis(50));
                nodes.put(r, node);
            }
        }

        private static String unit(Region home) {
            return "u-" + home.id();
        }

        private static String user(Region home, int i) {
            return home.id() + "-" + i;
        }

        private void say(String line) {
            progress.accept(String.format(Locale.ROOT, "%6.1fs partition %s: %s",
                                          (System.nanoTime() - started) / 1e9, naive ? "naive" : "unitas", line));
        }

        Result drill() {
            // Before: every user writes at home, and replication settles.
            for (Region home : REGIONS) {
                for (int i = 0; i < settings.usersPerUnit(); i++) {
                    writeAll(nodes.get(home), home, i, "before");
                }
            }
            awaitSettled(Duration.ofSeconds(60));
            say("written at home and replicated: " + settings.usersPerUnit() * REGIONS.size() + " users");

            // The partition: cn and eu cannot reach each other; cn's unit fails over to eu, cn keeps writing it too.
            cut.add(List.of(CN, EU));
            cut.add(List.of(EU, CN));
            long partitionStart = System.nanoTime();
            homes.put(unit(CN), EU);
            say("partition: cn and eu cut from each other; u-cn fails over to eu, cn keeps taking its writes");
            for (int w = 0; w < settings.writesPerUser(); w++) {
                for (int i = 0; i < settings.usersPerUnit(); i++) {
                    writeAll(nodes.get(CN), CN, i, "cn" + w);
                    writeAll(nodes.get(EU), CN, i, "eu" + w);
                }
            }
            for (int i = 0; i < settings.usersPerUnit(); i += 2) { // the same address edited on both sides
                String user = user(CN, i);
                entities.address(nodes.get(CN), unit(CN), user, "street " + i + " (edited in cn)");
                entities.address(nodes.get(EU), unit(CN), user, "street " + i + " (edited in eu)");
                conflicting.put(user, Set.of("street " + i + " (edited in cn)", "street " + i + " (edited in eu)"));
            }
            int injected = injectDrift(nodes.get(US), EU);
            say("drift injected into us's copy of u-eu behind replication: " + injected + " entities");
            long partitionMillis = (System.nanoTime() - partitionStart) / 1_000_000;

            cut.clear();
            long healed = System.nanoTime();
            say("partition healed after " + partitionMillis + " ms");
            long converged = awaitConverged(healed);
            say(converged < 0 ? "not converged within the window" : "converged " + converged + " ms after the heal");
            awaitSettled(Duration.ofSeconds(30));
            return count(injected, converged, partitionMillis, sessions());
        }

        private void writeAll(Node n, Region unitHome, int i, String tag) {
            String unit = unit(unitHome);
            String user = user(unitHome, i);
            String item = "item-" + tag + "-" + i;
            String orderId = "order-" + n.region.id() + "-" + tag + "-" + i;
            entities.addToCart(n, unit, user, item);
            cartAdds.computeIfAbsent(user, u -> new TreeSet<>()).add(item);
            entities.increment(n, unit, user);
            increments.merge(user, 1L, Long::sum);
            entities.order(n, unit, user, orderId);
            ordersPlaced.computeIfAbsent(user, u -> new TreeSet<>()).add(orderId);
            if (tag.equals("before")) {
                entities.address(n, unit, user, "street " + i);
            }
        }

        /**
         * Drift behind the library's back in {@code copy}'s rows of {@code home}'s unit: a third of the carts deleted,
         * a third of the points lowered to
         * nothing. Returns how many entities now differ.
         */
        private int injectDrift(Node copy, Region home) {
            int n = 0;
            // A counter lowered to nothing, in the setup's own encoding of it.
            byte[] lowered = naive ? Codec.lww(Codec.utf8()).encode(LwwRegister.initial(copy.region.id(), "0", 0))
                    : Codec.counter().encode(PnCounter.zero());
            try (Connection c = copy.db.getConnection()) {
                for (int i = 0; i < settings.usersPerUnit(); i += 3) {
                    try (PreparedStatement ps = c.prepareStatement(
                            "DELETE FROM unitas_merge_state WHERE entity_type = 'cart' AND entity_key = ?")) {
                        ps.setString(1, user(home, i));
                        n += ps.executeUpdate();
                    }
                    try (PreparedStatement ps = c.prepareStatement(
                            "UPDATE unitas_merge_state SET state = ? WHERE entity_type = 'points' AND entity_key = ?")) {
                        ps.setBytes(1, lowered);
                        ps.setString(2, user(home, i));
                        n += ps.executeUpdate();
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("drift into " + copy.region + ": " + e.getMessage(), e);
            }
            return n;
        }

        /** Until every region has applied what every other wrote. */
        private void awaitSettled(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (settled()) {
                    return;
                }
                pause();
            }
            say("replication not settled within " + timeout.toSeconds() + " s");
        }

        private boolean settled() {
            for (Node origin : nodes.values()) {
                Map<String, Long> written = origin.outbox.lastSequences();
                for (Node target : nodes.values()) {
                    if (target == origin) {
                        continue;
                    }
                    Map<String, Long> applied = target.applier.positions(origin.region);
                    for (Map.Entry<String, Long> unit : written.entrySet()) {
                        if (applied.getOrDefault(unit.getKey(), 0L) < unit.getValue()) {
                            return false;
                        }
                    }
                }
            }
            return true;
        }

        /**
         * Runs reconciliation (unitas only) every {@code reconcileEvery} until every region's digests match, or the
         * window passes; returns the milliseconds from {@code healed} to identical digests, -1 when they were not.
         */
        private long awaitConverged(long healed) {
            Map<Region, DigestReconciler> reconcilers = new LinkedHashMap<>();
            if (!naive) {
                for (Node n : nodes.values()) {
                    DigestReconciler.Builder b = DigestReconciler.builder(n.store, MergeDigests.postgres(n.db))
                            .ranges(RANGES).window(settings.reconcileEvery()).clock(clock)
                            .registry(new SimpleMeterRegistry());
                    nodes.values().stream().filter(o -> o != n)
                         .forEach(o -> b.home(o.region, MergeDigests.postgres(o.db)));
                    reconcilers.put(n.region, b.build());
                }
            }
            long deadline = healed + settings.window().toNanos();
            while (System.nanoTime() < deadline) {
                for (Map.Entry<Region, DigestReconciler> r : reconcilers.entrySet()) {
                    for (DigestReport report : r.getValue().runDue(Map.copyOf(homes))) {
                        if (report.repaired() > 0) {
                            say(r.getKey() + "'s copy of " + report.unit() + " against " + report.home() + "'s: "
                                + report.repaired() + " keys repaired ("
                                + report.keys().entrySet().stream().filter(e -> e.getKey() != RepairAction.NONE)
                                        .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))
                                + ")");
                        }
                    }
                }
                if (settled() && identical()) {
                    return (System.nanoTime() - healed) / 1_000_000;
                }
                pause();
            }
            return -1;
        }

        private boolean identical() {
            for (Region home : REGIONS) {
                for (String type : TYPES) {
                    Set<Object> digests = new HashSet<>();
                    for (Node n : nodes.values()) {
                        digests.add(MergeDigests.postgres(n.db).digests(unit(home), type, RANGES));
                    }
                    if (digests.size() > 1) {
                        return false;
                    }
                }
            }
            return true;
        }

        /** The sessions the server opened on this run's databases so far (each session counts when it reports). */
        private long sessions() {
            try (Connection c = nodes.get(US).db.getConnection();
                 PreparedStatement ps = c.prepareStatement(
                         "SELECT coalesce(sum(sessions), 0) FROM pg_stat_database WHERE datname LIKE ?")) {
                ps.setString(1, "partition\\_" + run + "\\_%");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("sessions: " + e.getMessage(), e);
            }
        }

        private Result count(int injected, long converged, long partitionMillis, long sessions) {
            int adds = 0;
            int cartLost = 0;
            long incs = 0;
            long incsLost = 0;
            int orders = 0;
            int ordersLost = 0;
            for (Node n : nodes.values()) {
                for (Map.Entry<String, Set<String>> user : cartAdds.entrySet()) {
                    Set<String> cart = entities.cart(n, user.getKey());
                    cartLost += (int) user.getValue().stream().filter(item -> !cart.contains(item)).count();
                }
                for (Map.Entry<String, Long> user : increments.entrySet()) {
                    incsLost += Math.max(0, user.getValue() - entities.points(n, user.getKey()));
                }
                for (Map.Entry<String, Set<String>> user : ordersPlaced.entrySet()) {
                    Set<String> placed = entities.orders(n, user.getKey());
                    ordersLost += (int) user.getValue().stream().filter(o -> !placed.contains(o)).count();
                }
            }
            // Counted once per region: an item missing in two regions is two losses.
            adds = cartAdds.values().stream().mapToInt(Set::size).sum() * nodes.size();
            incs = increments.values().stream().mapToLong(Long::longValue).sum() * nodes.size();
            orders = ordersPlaced.values().stream().mapToInt(Set::size).sum() * nodes.size();
            int listed = 0;
            for (Map.Entry<String, Set<String>> user : conflicting.entrySet()) {
                // Listed in the unit's home now (eu), with both values kept for an operator to resolve.
                if (entities.addresses(nodes.get(EU), user.getKey()).containsAll(user.getValue())) {
                    listed++;
                }
            }
            int repaired = 0;
            Node copy = nodes.get(US);
            Node home = nodes.get(EU);
            for (int i = 0; i < settings.usersPerUnit(); i += 3) {
                String user = user(EU, i);
                repaired += entities.cart(copy, user).equals(entities.cart(home, user)) ? 1 : 0;
                repaired += entities.points(copy, user) == entities.points(home, user) ? 1 : 0;
            }
            return new Result(naive, replication, adds, cartLost, incs, incsLost, orders, ordersLost,
                              conflicting.size(), listed, injected, Math.min(repaired, injected), converged,
                              settings.window().toMillis(), partitionMillis, sessions);
        }

        private static void pause() {
            try {
                Thread.sleep(100); // polling for replication and digests; no decision is timed by it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }

        @Override
        public void close() {
            for (Node n : nodes.values()) {
                if (n.shipper != null) {
                    n.shipper.close();
                }
            }
            transports.forEach(ChangeTransport::close);
            pools.forEach(JdbcConnectionPool::dispose);
        }
    }
}
