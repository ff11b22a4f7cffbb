package io.unitas.data.kafka;

import java.time.Instant;
import java.util.Objects;

/**
 * Whether a region's Kafka transport does its work, for health reports: its receiving loop and its reader of
 * acknowledgements run and pass, and its last publish went through.
 *
 * @param healthy  every loop alive, recent and passing
 * @param reason   one line saying what is wrong; empty when healthy
 * @param lastPass when the receiving loop last completed a pass ({@link Instant#EPOCH} before the first, or when
 *                 this transport does not receive)
 * @param passes   passes of the receiving loop so far
 * @param failures failed passes so far (the loop goes on after each)
 * @param held     changes read and held in memory, waiting for a predecessor, a database, or a stopped unit
 */
public record KafkaTransportStatus(boolean healthy, String reason, Instant lastPass, long passes, long failures,
                                   long held) {

    /** Requires a reason and a time. */
    public KafkaTransportStatus {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(lastPass, "lastPass");
    }
}
