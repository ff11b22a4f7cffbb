package io.unitas.data.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeTransport;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A {@link ChangeTransport} over Apache Kafka, one per region's process: it publishes that region's changes and, given
 * the region's {@link ChangeApplier}, receives every other region's.
 *
 * <p><b>Topics.</b> One topic per origin region, {@code <prefix>changes.<origin>}: a change is written once whatever
 * the number of regions, and each region reads the topics of the others. (A topic per region pair would write each
 * change once per target, and N·(N−1) topics.) Across real regions, each region's cluster holds its own topic, and
 * MirrorMaker 2 copies it to the others with the identity replication policy, so a topic keeps its name and its
 * records' keys; on a cluster stretched over the regions, the same topics are read across them. The records'
 * key is the unit, so one unit's changes are in one partition, in the order published.
 *
 * <p><b>Partitions added</b> move some units' new changes to another partition while their older ones may still be
 * unread in the old one. Nothing is lost or reordered: each change names its predecessor, the applier refuses one
 * that comes early (a gap), the receiver holds it in memory and applies it once its predecessor is read. The
 * receiver finds new partitions within {@link Builder#metadataRefresh} and reads them from their start.
 *
 * <p><b>Delivery.</b> The producer is idempotent with {@code acks=all}. The receiver applies through the applier,
 * which stores each unit's applied position in the target's database in the transaction of the change, so a change
 * read twice is applied once; after each round it stores, per partition, the offset to read from (the lowest one
 * still held), in {@code unitas_kafka_offsets} of the same database, and seeks from it when it starts. A change is
 * read at least once and applied exactly once. The receiver reports the positions it applied and its stopped
 * streams back on the compacted {@code <prefix>acks} topic, which the sender reads for
 * {@link #acknowledged} and {@link #stopped}, so the shipper's lag and trimming work as with the embedded transport.
 * A change the applier rejects (a schema mismatch) stops its unit's stream there, is copied once to
 * {@code <prefix>deadletter} with the reason, and every other unit goes on. A publish that fails (the broker gone for
 * longer than the producer's delivery timeout) asks the sender to publish again ({@link #replayRequests}).
 */
public interface KafkaTransport extends ChangeTransport {

    /** A builder of the transport of {@code region}, reaching Kafka at {@code bootstrapServers}. */
    static Builder builder(Region region, String bootstrapServers) {
        return new Builder(region, bootstrapServers);
    }

    /** The topic carrying {@code origin}'s changes, {@code <prefix>changes.<origin>}. */
    static String changesTopic(String prefix, Region origin) {
        return prefix + "changes." + origin.id();
    }

    /** Starts receiving other regions' changes on a daemon thread, if this transport has an applier. */
    void start();

    /** Whether the receiving loop and the acknowledgement reader run, as of now by the clock. */
    KafkaTransportStatus status();

    /** The region this transport serves. */
    Region region();

    /**
     * Builds a {@link KafkaTransport}; {@link #regions} and, to receive, {@link #receiver} are required, the rest has
     * defaults.
     */
    final class Builder {

        final Region region;
        final String bootstrapServers;
        List<Region> regions = List.of();
        ChangeApplier applier;
        DataSource offsets;
        String topicPrefix = "unitas.";
        int partitions = 8;
        short replicationFactor = 1;
        Clock clock = Clock.systemUTC();
        MeterRegistry registry = new SimpleMeterRegistry();
        Duration staleAfter = Duration.ofSeconds(30);
        Duration metadataRefresh = Duration.ofSeconds(5);
        Duration retryStopped = Duration.ofSeconds(1);
        Duration ackInterval = Duration.ofMillis(50);
        int heldPerStream = 10_000;
        Map<String, String> clientProperties = Map.of();

        Builder(Region region, String bootstrapServers) {
            this.region = Objects.requireNonNull(region, "region");
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
            if (bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("bootstrapServers: empty (expected: host:port[,host:port...])");
            }
        }

        /** Every region replicating, this one included: whose topics exist and are read. */
        public Builder regions(List<Region> regions) {
            this.regions = List.copyOf(regions);
            return this;
        }

        /**
         * Receives other regions' changes into {@code applier}, storing the offsets to read from in
         * {@code dataSource}, the database {@code applier} writes to.
         */
        public Builder receiver(ChangeApplier applier, DataSource dataSource) {
            this.applier = Objects.requireNonNull(applier, "applier");
            this.offsets = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** The prefix of every topic's name; {@code unitas.} unless given. */
        public Builder topicPrefix(String prefix) {
            this.topicPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** Partitions of each changes topic this transport creates; 8 unless given. */
        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        /** Replicas of each topic this transport creates (3 on a production cluster); 1 unless given. */
        public Builder replicationFactor(int replicationFactor) {
            this.replicationFactor = (short) replicationFactor;
            return this;
        }

        /** The clock of status ages and stopped streams' retries. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where the transport's meters go. */
        public Builder registry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** A loop without a successful pass for longer than this is reported stalled; 30 s unless given. */
        public Builder staleAfter(Duration staleAfter) {
            this.staleAfter = Objects.requireNonNull(staleAfter, "staleAfter");
            return this;
        }

        /** How often the receiver looks for partitions added to the topics it reads; 5 s unless given. */
        public Builder metadataRefresh(Duration metadataRefresh) {
            this.metadataRefresh = Objects.requireNonNull(metadataRefresh, "metadataRefresh");
            return this;
        }

        /** How often a stopped unit's refused change is offered again; 1 s unless given. */
        public Builder retryStopped(Duration retryStopped) {
            this.retryStopped = Objects.requireNonNull(retryStopped, "retryStopped");
            return this;
        }

        /**
         * How often, at most, the receiver reports the positions it applied while changes keep coming (at once when it
         * falls idle, and at once for a stopped or resumed stream); 50 ms unless given. Each report is a record the
         * broker writes; the origin's lag report waits for it.
         */
        public Builder ackInterval(Duration ackInterval) {
            this.ackInterval = Objects.requireNonNull(ackInterval, "ackInterval");
            return this;
        }

        /**
         * Changes held in memory behind a unit's change that cannot apply yet; beyond, they are read again from Kafka
         * once it applies. 10,000 unless given.
         */
        public Builder heldPerStream(int heldPerStream) {
            this.heldPerStream = heldPerStream;
            return this;
        }

        /** Kafka client properties added to (or replacing) the transport's own, e.g. security settings. */
        public Builder clientProperties(Map<String, String> properties) {
            this.clientProperties = Map.copyOf(properties);
            return this;
        }

        /**
         * Creates the topics that are missing and connects; call {@link KafkaTransport#start()} to receive.
         *
         * @throws IllegalArgumentException when a setting is out of range, naming it and what was expected
         * @throws IllegalStateException    when Kafka cannot be reached to create the topics
         */
        public KafkaTransport build() {
            List<String> problems = new ArrayList<>();
            if (!regions.contains(region)) {
                problems.add("regions: " + regions + " (expected: to include " + region + ")");
            }
            if (partitions < 1) {
                problems.add("partitions: " + partitions + " (expected: >= 1)");
            }
            if (replicationFactor < 1) {
                problems.add("replicationFactor: " + replicationFactor + " (expected: >= 1)");
            }
            if (ackInterval.isNegative()) {
                problems.add("ackInterval: " + ackInterval + " (expected: >= 0)");
            }
            if (heldPerStream < 1) {
                problems.add("heldPerStream: " + heldPerStream + " (expected: >= 1)");
            }
            if (applier != null && !applier.region().equals(region)) {
                problems.add("receiver: applier of " + applier.region() + " (expected: of " + region + ")");
            }
            if (!problems.isEmpty()) {
                throw new IllegalArgumentException("kafka transport of " + region + ": " + String.join("; ", problems));
            }
            return new KafkaChangeTransport(this);
        }
    }
}
