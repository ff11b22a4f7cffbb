package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Carries one region's changes to the others. The contract a transport keeps, and what a Kafka transport maps it to:
 * <ul>
 *   <li>one unit's changes arrive in the order published (Kafka: the unit is the record key, so the partition);
 *       each names its predecessor ({@link ChangeEnvelope#previous()}), so a receiver holds at a missing one;</li>
 *   <li>every change published arrives at least once (Kafka: {@code acks=all}, consumers that commit after
 *       applying); repeats and replays are harmless because appliers apply each change once;</li>
 *   <li>each receiving region acknowledges, per unit, the last sequence it applied, read from the positions it
 *       stores with the data (Kafka: the consumer seeks from them; they are reported back to the sender);</li>
 *   <li>a transport that cannot hold a change for a target (a bounded buffer, a log truncated before a consumer
 *       read it) never drops it silently: it says so in {@link #replayRequests}, and the sender publishes again
 *       from that target's acknowledged positions (Kafka: a consumer whose offset fell out of retention).</li>
 * </ul>
 */
public interface ChangeTransport extends AutoCloseable {

    /** Hands over {@code changes}, in each unit's sequence order; may buffer until {@link #flush()}. */
    void publish(List<ChangeEnvelope> changes);

    /** Returns once what was published is handed on (Kafka: the producer's flush; in process: delivered). */
    void flush();

    /**
     * The last sequence {@code target} has applied of each unit from {@code origin}.
     *
     * @throws IllegalStateException when {@code target} cannot tell now
     */
    Map<String, Long> acknowledged(Region origin, Region target);

    /** The streams of {@code origin}'s units stopped in some receiving region, as the receivers report them. */
    List<StoppedStream> stopped(Region origin);

    /**
     * The targets that lost changes of {@code origin} the transport could not hold and can take them again now; the
     * sender publishes from their acknowledged positions. Asking clears the requests returned.
     */
    default Set<Region> replayRequests(Region origin) {
        return Set.of();
    }

    /** Releases what the transport holds; published changes not yet delivered are sent again from the outbox. */
    @Override
    void close();
}
