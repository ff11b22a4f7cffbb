package io.unitas.data.outbox;

import io.unitas.core.Region;

/**
 * The {@link ChangeTransport} of the embedded default: every region's applier in this process, one ordered queue per
 * link and unit, delivered on {@link #flush()} in batches of a unit's changes (one applying transaction each). A link
 * can be paused and resumed, as a network partition between two regions would (changes queue meanwhile and their lag
 * grows). Each link holds at most its capacity of changes: beyond it, a link takes no more (its state says so, and a
 * WARN line), the changes stay in the origin's outbox, and once the link has delivered its queue the sender is asked
 * to publish again from that region's acknowledged positions ({@link #replayRequests}). Nothing is lost, and a
 * paused link's memory is bounded.
 */
public interface InProcessTransport extends ChangeTransport {

    /** The capacity of each link unless given: changes queued for one target from one origin. */
    int DEFAULT_CAPACITY = 100_000;

    /** An in-process transport with no receivers yet, each link holding {@link #DEFAULT_CAPACITY} changes. */
    static InProcessTransport create() {
        return create(DEFAULT_CAPACITY);
    }

    /**
     * An in-process transport with no receivers yet, each link holding at most {@code capacity} changes.
     *
     * @throws IllegalArgumentException when {@code capacity} is below 1
     */
    static InProcessTransport create(int capacity) {
        return new MemoryTransport(capacity);
    }

    /**
     * Delivers changes of every other region to {@code applier}'s region from now on. A region that joins after
     * others have published asks each of them, through {@link #replayRequests}, to publish again to it from its
     * acknowledged positions, so what they shipped before it existed reaches it at their next round.
     */
    void receiver(ChangeApplier applier);

    /** Holds changes from {@code origin} to {@code target} until {@link #resume}. */
    void pause(Region origin, Region target);

    /** Lets changes from {@code origin} to {@code target} flow again from the next {@link #flush()}. */
    void resume(Region origin, Region target);

    /** How many changes wait in the link from {@code origin} to {@code target}. */
    int queued(Region origin, Region target);

    /** The state of the link from {@code origin} to {@code target}. */
    LinkStatus link(Region origin, Region target);

    /**
     * One link of the in-process transport.
     *
     * @param origin   where its changes come from
     * @param target   where they go
     * @param queued   changes waiting
     * @param capacity changes it holds at most
     * @param paused   whether it is paused
     * @param overCap  whether it reached its capacity and takes no more until it has delivered its queue (the
     *                 changes not taken wait in the origin's outbox and are published again then)
     * @param refused  changes it did not take since it went over its capacity last
     */
    record LinkStatus(Region origin, Region target, int queued, int capacity, boolean paused, boolean overCap,
                      long refused) {

        /** One line for logs and health reasons. */
        public String describe() {
            return "link " + origin + "->" + target + ": " + queued + " of " + capacity + " changes queued"
                   + (paused ? ", paused" : "")
                   + (overCap ? ", over its capacity: " + refused + " changes wait in " + origin + "'s outbox" : "");
        }
    }
}
