package io.unitas.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.kafka.KafkaTransport;
import io.unitas.data.outbox.ApplyResult;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeEnvelope;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.ChangeTransport;
import io.unitas.data.outbox.InProcessTransport;
import io.unitas.data.outbox.Outbox;
import io.unitas.data.outbox.OutboxShipper;
import io.unitas.data.outbox.StoppedStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Replication lag per unit across three regions (goal: p99 at most 300 ms at 2,000 changes/s): cn, eu and us, each
 * its own PostgreSQL database, write ledger entries of their own units at a fixed total rate, each in a transaction
 * with its change appended to the region's outbox; every region's shipper ships to the other two through the
 * in-process transport and their appliers write the entries. Each change's lag is its age when its applying
 * transaction has committed in a target (write time at the origin to commit at the target, one clock), the per-unit
 * lag as a switchover would see it. Prints p50, p90, p99 and the maximum, the rate reached, and any stopped stream.
 * With {@code --kafka}, the regions replicate through Kafka instead ({@link KafkaTransport}, one per region, each
 * receiving into its region's applier), the same writers, shippers and measurement otherwise.
 *
 * <p>Run with its own three PostgreSQL servers: {@code benchmarks/data/outbox-lag.sh}; through Kafka beside the
 * embedded transport: {@code benchmarks/data/kafka-lag.sh}. By hand:
 * {@code java -cp benchmarks/jmh/target/benchmarks.jar io.unitas.benchmarks.OutboxLagBenchmark --help}.
 */
public final class OutboxLagBenchmark {

    private static final String USAGE = """
            usage: OutboxLagBenchmark --cn JDBC_URL --eu JDBC_URL --us JDBC_URL [options]
              --rate N        changes written per second, all regions together (default 2000)
              --units N       units, homed round-robin in cn, eu, us (default 60)
              --seconds N     measured seconds (default 30), after --warmup N seconds (default 5)
              --writers N     writer connections per region (default 4)
              --poll MILLIS   each shipper's round interval (default 20)
              --kafka SERVERS replicate through Kafka at SERVERS (host:port,...) instead of in process
              --partitions N  partitions of each region's Kafka topic (default 8)
            Each URL names an empty database (the benchmark creates its table and unitas's, and empties them).""";

    private static final List<Region> REGIONS = List.of(Region.of("cn"), Region.of("eu"), Region.of("us"));
    private static final String ENTRY = "ledger_entry";

    private OutboxLagBenchmark() {}

    /** Runs the benchmark; {@code --help} prints the usage. */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--help") || args[i].equals("-h")) {
                System.out.println(USAGE);
                return;
            }
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                System.err.println("OutboxLagBenchmark: " + args[i] + ": expected --name value\n" + USAGE);
                System.exit(2);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        for (Region region : REGIONS) {
            if (!options.containsKey(region.id())) {
                System.err.println("OutboxLagBenchmark: --" + region.id() + " missing (expected a JDBC URL)\n" + USAGE);
                System.exit(2);
            }
        }
        int rate = Integer.parseInt(options.getOrDefault("rate", "2000"));
        int units = Integer.parseInt(options.getOrDefault("units", "60"));
        int seconds = Integer.parseInt(options.getOrDefault("seconds", "30"));
        int warmup = Integer.parseInt(options.getOrDefault("warmup", "5"));
        int writers = Integer.parseInt(options.getOrDefault("writers", "4"));
        Duration poll = Duration.ofMillis(Long.parseLong(options.getOrDefault("poll", "20")));
        new Run(options, rate, units, seconds, warmup, writers, poll).run();
    }

    private static final class Run {

        private final Clock clock = Clock.systemUTC();
        private final Map<Region, DataSource> db = new LinkedHashMap<>();
        private final Map<Region, Outbox> outbox = new LinkedHashMap<>();
        private final List<OutboxShipper> shippers = new ArrayList<>();
        private final InProcessTransport inProcess = InProcessTransport.create();
        private final Map<Region, ChangeTransport> transports = new LinkedHashMap<>();
        private final String kafka;
        private final int rate;
        private final int units;
        private final int seconds;
        private final int warmup;
        private final int writers;
        private final Duration poll;
        private final AtomicLong written = new AtomicLong();
        private final long[] lags = new long[16 * 1024 * 1024];
        private final AtomicLong lagCount = new AtomicLong();
        /** Each change's age when the shipper read it (its commit, the wait for a round and for the horizon). */
        private final long[] readAges = new long[8 * 1024 * 1024];
        private final AtomicLong readCount = new AtomicLong();
        private final AtomicLong applyCalls = new AtomicLong();
        private final AtomicLong applyNanos = new AtomicLong();
        private final AtomicLong readCalls = new AtomicLong();
        private final AtomicLong readNanos = new AtomicLong();
        private volatile boolean measuring;
        private volatile boolean stop;

        Run(Map<String, String> urls, int rate, int units, int seconds, int warmup, int writers, Duration poll)
                throws SQLException {
            this.rate = rate;
            this.units = units;
            this.seconds = seconds;
            this.warmup = warmup;
            this.writers = writers;
            this.poll = poll;
            this.kafka = urls.get("kafka");
            String topicPrefix = "bench-" + Long.toHexString(System.nanoTime()) + ".";
            for (Region region : REGIONS) {
                PGSimpleDataSource server = new PGSimpleDataSource();
                server.setUrl(urls.get(region.id()));
                DataSource ds = pooled(server);
                db.put(region, ds);
                outbox.put(region, Outbox.jdbc(region, ds, clock));
                try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE IF NOT EXISTS bench_ledger_entries (entry_id VARCHAR(100) PRIMARY KEY,"
                              + " account VARCHAR(100) NOT NULL, amount BIGINT NOT NULL)");
                    s.execute("TRUNCATE bench_ledger_entries, unitas_outbox, unitas_applied");
                }
                ChangeApplier applier = ChangeApplier.jdbc(region, ds, Map.of(ENTRY, HANDLER), clock,
                                                           new SimpleMeterRegistry());
                if (kafka == null) {
                    inProcess.receiver(new Measured(applier));
                    transports.put(region, inProcess);
                } else {
                    KafkaTransport t = KafkaTransport.builder(region, kafka).regions(REGIONS)
                            .receiver(new Measured(applier), ds).topicPrefix(topicPrefix)
                            .partitions(Integer.parseInt(urls.getOrDefault("partitions", "8"))).build();
                    t.start();
                    transports.put(region, t);
                }
            }
            for (Region region : REGIONS) {
                shippers.add(OutboxShipper.create(new Timed(outbox.get(region)), transports.get(region),
                                                  REGIONS.stream().filter(r -> !r.equals(region)).toList(), clock,
                                                  new SimpleMeterRegistry(), Duration.ofSeconds(30)));
            }
        }

        void run() throws Exception {
            shippers.forEach(s -> s.start(poll));
            List<Thread> threads = new ArrayList<>();
            long start = System.nanoTime() + 100_000_000L;
            int threadCount = writers * REGIONS.size();
            long periodNanos = 1_000_000_000L * threadCount / rate; // each thread's share of the schedule
            for (int r = 0; r < REGIONS.size(); r++) {
                for (int w = 0; w < writers; w++) {
                    int regionIndex = r;
                    int slot = r * writers + w;
                    Thread t = new Thread(() -> write(regionIndex, slot, start + slot * periodNanos / threadCount,
                                                      periodNanos), "writer-" + REGIONS.get(r) + "-" + w);
                    t.setDaemon(true);
                    threads.add(t);
                    t.start();
                }
            }
            Thread.sleep(warmup * 1000L + 100);
            long writtenBefore = written.get();
            measuring = true;
            long measureStart = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            measuring = false;
            double elapsed = (System.nanoTime() - measureStart) / 1e9;
            long writtenDuring = written.get() - writtenBefore;
            stop = true;
            for (Thread t : threads) {
                t.join(10_000);
            }
            shippers.forEach(OutboxShipper::close);
            report(writtenDuring / elapsed, writtenDuring);
            if (kafka != null) {
                transports.values().forEach(ChangeTransport::close);
            }
        }

        /** One writer: a connection of its region, writing on a fixed schedule (catching up when behind). */
        private void write(int regionIndex, int slot, long firstAt, long periodNanos) {
            Region region = REGIONS.get(regionIndex);
            Outbox box = outbox.get(region);
            long next = firstAt;
            long n = 0;
            try (Connection tx = db.get(region).getConnection()) {
                tx.setAutoCommit(false);
                while (!stop) {
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    next += periodNanos;
                    // the region's units are those whose index is regionIndex modulo 3
                    int unitsHere = (units - regionIndex + 2) / 3;
                    String unit = "u-" + (regionIndex + 3 * (int) ((slot * 7919L + n) % Math.max(1, unitsHere)));
                    String id = region + "-" + slot + "-" + n++;
                    try (PreparedStatement ps = tx.prepareStatement(
                            "INSERT INTO bench_ledger_entries (entry_id, account, amount) VALUES (?, ?, ?)")) {
                        ps.setString(1, id);
                        ps.setString(2, unit);
                        ps.setLong(3, n);
                        ps.executeUpdate();
                    }
                    box.append(tx, unit, ENTRY, id, (unit + "|" + n).getBytes(StandardCharsets.UTF_8));
                    tx.commit();
                    written.incrementAndGet();
                }
            } catch (SQLException e) {
                System.err.println("writer in " + region + " failed: " + e.getMessage());
            }
        }

        private void report(double achievedRate, long writtenDuring) {
            int count = (int) Math.min(lagCount.get(), lags.length);
            long[] sorted = Arrays.copyOf(lags, count);
            Arrays.sort(sorted);
            List<StoppedStream> stopped = new ArrayList<>();
            for (Region region : REGIONS) {
                stopped.addAll(transports.get(region).stopped(region));
            }
            System.out.printf("three regions (cn, eu, us), %d units, %d writers per region, shipper round every %d ms,"
                              + " transport: %s%n", units, writers, poll.toMillis(),
                              kafka == null ? "in process" : "Kafka at " + kafka);
            System.out.printf("  written     %8.0f changes/s (asked %d) for %d s after %d s of warm-up%n", achievedRate,
                              rate, seconds, warmup);
            System.out.printf("  applied     %8d changes in the other two regions while measuring (%.0f%% of the %d"
                              + " due: %s)%n", count, 100.0 * count / Math.max(1, 2 * writtenDuring), 2 * writtenDuring,
                              count >= 2 * writtenDuring * 0.98 ? "kept up" : "fell behind");
            if (count == 0) {
                System.out.println("  nothing applied: no lag to report");
                return;
            }
            System.out.printf("  lag p50     %8d ms%n", sorted[(int) (count * 0.50)]);
            System.out.printf("  lag p90     %8d ms%n", sorted[(int) (count * 0.90)]);
            long p99 = sorted[Math.min(count - 1, (int) (count * 0.99))];
            System.out.printf("  lag p99     %8d ms   (goal: <= 300 ms: %s)%n", p99, p99 <= 300 ? "met" : "NOT met");
            System.out.printf("  lag max     %8d ms%n", sorted[count - 1]);
            System.out.printf("  stopped     %8d streams%s%n", stopped.size(),
                              stopped.isEmpty() ? "" : ": " + stopped.get(0).describe());
            int reads = (int) Math.min(readCount.get(), readAges.length);
            if (reads > 0) {
                long[] ages = Arrays.copyOf(readAges, reads);
                Arrays.sort(ages);
                System.out.printf("  where it goes: age when read for shipping p50 %d ms, p99 %d ms;"
                                  + " a read (horizon included) %.1f ms on average (%d);"
                                  + " an applying call %.1f ms on average (%d)%n",
                                  ages[reads / 2], ages[Math.min(reads - 1, (int) (reads * 0.99))],
                                  readNanos.get() / 1e6 / Math.max(1, readCalls.get()), readCalls.get(),
                                  applyNanos.get() / 1e6 / Math.max(1, applyCalls.get()), applyCalls.get());
            }
        }

        /** The outbox, timing the shipper's reads and recording each change's age when read. */
        private final class Timed implements Outbox {

            private final Outbox outbox;

            Timed(Outbox outbox) {
                this.outbox = outbox;
            }

            @Override
            public Region origin() {
                return outbox.origin();
            }

            @Override
            public ChangeEnvelope append(Connection transaction, String unit, String entityType, String key,
                                         byte[] payload) throws SQLException {
                return outbox.append(transaction, unit, entityType, key, payload);
            }

            @Override
            public List<ChangeEnvelope> after(long afterPosition, int limit) {
                long start = System.nanoTime();
                List<ChangeEnvelope> read = outbox.after(afterPosition, limit);
                if (measuring) {
                    readNanos.addAndGet(System.nanoTime() - start);
                    readCalls.incrementAndGet();
                    long now = clock.millis();
                    for (ChangeEnvelope change : read) {
                        long i = readCount.getAndIncrement();
                        if (i < readAges.length) {
                            readAges[(int) i] = now - change.writtenAt().toEpochMilli();
                        }
                    }
                }
                return read;
            }

            @Override
            public Map<String, java.time.Instant> oldestAfter(long afterPosition) {
                return outbox.oldestAfter(afterPosition);
            }

            @Override
            public int trim(long throughPosition) {
                return outbox.trim(throughPosition);
            }

            @Override
            public Map<String, Long> lastSequences() {
                return outbox.lastSequences();
            }

            @Override
            public List<ChangeEnvelope> after(String unit, long afterSequence, int limit) {
                return outbox.after(unit, afterSequence, limit);
            }

            @Override
            public java.util.Optional<java.time.Instant> oldestAfter(String unit, long afterSequence) {
                return outbox.oldestAfter(unit, afterSequence);
            }

            @Override
            public int trim(String unit, long throughSequence) {
                return outbox.trim(unit, throughSequence);
            }
        }

        /** The applier, recording each applied change's age once its transaction has committed. */
        private final class Measured implements ChangeApplier {

            private final ChangeApplier applier;

            Measured(ChangeApplier applier) {
                this.applier = applier;
            }

            @Override
            public Region region() {
                return applier.region();
            }

            @Override
            public ApplyResult apply(ChangeEnvelope change) {
                return applyAll(List.of(change)).get(0);
            }

            @Override
            public List<ApplyResult> applyAll(List<ChangeEnvelope> changes) {
                long start = System.nanoTime();
                List<ApplyResult> results = applier.applyAll(changes);
                if (measuring) {
                    applyNanos.addAndGet(System.nanoTime() - start);
                    applyCalls.incrementAndGet();
                    long now = clock.millis();
                    for (ApplyResult result : results) {
                        if (result.outcome() == ApplyResult.Outcome.APPLIED) {
                            long i = lagCount.getAndIncrement();
                            if (i < lags.length) {
                                lags[(int) i] = now - result.change().writtenAt().toEpochMilli();
                            }
                        }
                    }
                }
                return results;
            }

            @Override
            public Map<String, Long> positions(Region origin) {
                return applier.positions(origin);
            }

            @Override
            public List<StoppedStream> stopped() {
                return applier.stopped();
            }
        }
    }

    /**
     * {@code server}'s connections, kept open and lent again (as a service's pool would), so that the shipper's and the
     * applier's short transactions do not each open a connection. Closing a lent connection rolls back what it left
     * open and returns it.
     */
    static DataSource pooled(PGSimpleDataSource server) {
        BlockingQueue<Connection> idle = new LinkedBlockingQueue<>();
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
            if (!method.getName().equals("getConnection")) {
                return method.invoke(server, args);
            }
            Connection physical = idle.poll();
            Connection connection = physical != null ? physical : server.getConnection();
            return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                    new InvocationHandler() {
                        private boolean closed;

                        @Override
                        public Object invoke(Object p, Method m, Object[] a) throws Throwable {
                            if (m.getName().equals("close")) {
                                if (!closed) {
                                    closed = true;
                                    if (!connection.getAutoCommit()) {
                                        connection.rollback();
                                    }
                                    idle.add(connection);
                                }
                                return null;
                            }
                            try {
                                return m.invoke(connection, a);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        }
                    });
        });
    }

    private static final String UPSERT = "INSERT INTO bench_ledger_entries (entry_id, account, amount) VALUES (?, ?, ?)"
            + " ON CONFLICT (entry_id) DO UPDATE SET account = EXCLUDED.account, amount = EXCLUDED.amount";

    /**
     * Writes a replicated entry as it came: insert, or overwrite the same entry id. A batch is one JDBC batch of
     * upserts, the last change of each entry only (so that pgjdbc's {@code reWriteBatchedInserts}, which makes it one
     * multi-row statement, never meets an entry twice in one statement): one round trip for the whole batch.
     */
    private static final ChangeHandler HANDLER = new ChangeHandler() {
        @Override
        public void apply(Connection tx, ChangeEnvelope change) throws SQLException {
            applyAll(tx, List.of(change));
        }

        @Override
        public void applyAll(Connection tx, List<ChangeEnvelope> changes) throws SQLException {
            Map<String, ChangeEnvelope> last = new LinkedHashMap<>();
            changes.forEach(c -> last.put(c.key(), c));
            try (PreparedStatement ps = tx.prepareStatement(UPSERT)) {
                for (ChangeEnvelope change : last.values()) {
                    String[] parts = new String(change.payload(), StandardCharsets.UTF_8).split("\\|");
                    ps.setString(1, change.key());
                    ps.setString(2, parts[0]);
                    ps.setLong(3, Long.parseLong(parts[1]));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    };
}
