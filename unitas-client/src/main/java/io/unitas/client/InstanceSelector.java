package io.unitas.client;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import io.unitas.core.ServiceKind;

/**
 * Picks, among a service's registered instances, those one call may go to: the instances of the first region of the
 * {@linkplain ServiceKind#place placement} for the request's unit that has any, so a call goes where the core's
 * route decision sends the unit, fails over in the core's order when the target region has no instance, and never
 * reaches a region the decision rules out. Within the region, the request's gray version is honoured.
 *
 * <p>Instances describe themselves with registry metadata (Eureka metadata, Consul tags, Nacos metadata, Kubernetes
 * labels: the same keys): {@value #REGION} (required), {@value #UNIT} (an instance that serves only that unit) and
 * {@value #VERSION} (its gray version). A service none of whose instances carries {@value #REGION} is not
 * unit-aware: every instance passes.
 */
public interface InstanceSelector {

    /** The metadata key of an instance's region. */
    String REGION = "unitas.region";
    /** The metadata key of the one unit an instance serves, if it is dedicated to one. */
    String UNIT = "unitas.unit";
    /** The metadata key of an instance's gray version. */
    String VERSION = "unitas.version";

    /**
     * A selector for a service running in region {@code self}, reading the current routing state from
     * {@code state} on every call.
     */
    static InstanceSelector of(String self, Supplier<RoutingSnapshot> state, Clock clock) {
        return new RegionInstanceSelector(self, state, clock);
    }

    /** The region this selector's service runs in: where a call without unit or region goes. */
    String self();

    /**
     * The instances a call with {@code context} to a service of {@code kind} may go to. The home of the call is the
     * unit's (from the rules), else the stamped region, else {@link #self()}.
     *
     * @param metadata an instance's registry metadata
     * @param write    whether the call writes (a global service takes writes only in its center, a shared one none)
     */
    <T> InstanceSelection<T> select(List<T> instances, Function<? super T, Map<String, String>> metadata,
                                    RoutingContext context, ServiceKind kind, boolean write);
}
