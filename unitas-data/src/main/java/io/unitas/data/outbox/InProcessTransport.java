package io.unitas.data.outbox;

import io.unitas.core.Region;

/**
 * The {@link ChangeTransport} of the embedded default: every region's applier in this process, one ordered queue per
 * link and unit, delivered on {@link #flush()}. A link can be paused and resumed, as a network partition between two
 * regions would (changes queue meanwhile and their lag grows).
 */
public interface InProcessTransport extends ChangeTransport {

    /** An in-process transport with no receivers yet. */
    static InProcessTransport create() {
        return new MemoryTransport();
    }

    /**
     * Delivers changes of every other region to {@code applier}'s region from now on; register every region before
     * the first publish, as changes published earlier are not queued for a receiver that did not exist.
     */
    void receiver(ChangeApplier applier);

    /** Holds changes from {@code origin} to {@code target} until {@link #resume}. */
    void pause(Region origin, Region target);

    /** Lets changes from {@code origin} to {@code target} flow again from the next {@link #flush()}. */
    void resume(Region origin, Region target);

    /** How many changes wait in the link from {@code origin} to {@code target}. */
    int queued(Region origin, Region target);
}
