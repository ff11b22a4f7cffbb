package io.unitas.resolver.grpc;

import io.grpc.LoadBalancer;
import io.grpc.LoadBalancerProvider;

/**
 * The {@code unitas_weighted} policy: among the connected endpoints, the lowest SRV priority of the healthiest, then
 * weighted by SRV weight times latency weight. Registered through {@code META-INF/services}.
 */
public final class UnitasLoadBalancerProvider extends LoadBalancerProvider {

    /** The policy's name in a service config. */
    public static final String POLICY = "unitas_weighted";

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public int getPriority() {
        return 5;
    }

    @Override
    public String getPolicyName() {
        return POLICY;
    }

    @Override
    public LoadBalancer newLoadBalancer(LoadBalancer.Helper helper) {
        return new UnitasLoadBalancer(helper);
    }
}
