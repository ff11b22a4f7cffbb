package io.unitas.client;

import java.util.List;

/**
 * The instances one call may go to, and why: all in one region (the first of the service kind's placement that has
 * any), narrowed to the request's gray version where instances of it exist. Empty when the call may go nowhere.
 *
 * @param instances the chosen instances, in the order given
 * @param region    the region they are in, or {@code null} when none was chosen (or the service is not unit-aware)
 * @param reason    one line for a person: the region and why, or why nothing was chosen
 */
public record InstanceSelection<T>(List<T> instances, String region, String reason) {

    /** Copies the list. */
    public InstanceSelection {
        instances = List.copyOf(instances);
    }

    /** Whether there is an instance to call. */
    public boolean isEmpty() {
        return instances.isEmpty();
    }
}
