package io.unitas.resolver.grpc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.StatusOr;
import io.grpc.SynchronizationContext;
import io.unitas.resolver.ResolvedEndpoint;
import io.unitas.resolver.Resolution;
import io.unitas.resolver.ServiceName;
import io.unitas.resolver.UnitasResolver;

/** Pushes every change of a service's resolution to the channel, each address with its priority, weight and state. */
final class UnitasNameResolver extends NameResolver {

    private final UnitasResolver resolver;
    private final ServiceName service;
    private final SynchronizationContext sync;
    private final ConfigOrError serviceConfig;
    private AutoCloseable subscription;
    private Listener2 listener;

    UnitasNameResolver(UnitasResolver resolver, ServiceName service, Args args) {
        this.resolver = resolver;
        this.service = service;
        this.sync = args.getSynchronizationContext();
        this.serviceConfig = args.getServiceConfigParser().parseServiceConfig(
                Map.of("loadBalancingConfig", List.of(Map.of(UnitasLoadBalancerProvider.POLICY, Map.of()))));
    }

    @Override
    public String getServiceAuthority() {
        return service.name();
    }

    @Override
    public void start(Listener2 listener) {
        this.listener = listener;
        subscription = resolver.subscribe(service, r -> sync.execute(() -> push(r)));
        refresh();
    }

    @Override
    public void refresh() {
        resolver.resolve(service).whenComplete((r, t) -> {
            if (t != null) {
                sync.execute(() -> {
                    if (listener != null) {
                        listener.onError(Status.UNAVAILABLE.withDescription(String.valueOf(t.getMessage())));
                    }
                });
            }
        });
    }

    private void push(Resolution r) {
        if (listener == null) {
            return;
        }
        if (r.endpoints().isEmpty()) {
            listener.onError(Status.UNAVAILABLE.withDescription(service + ": no endpoint (" + r.source() + ")"));
            return;
        }
        List<EquivalentAddressGroup> groups = new ArrayList<>();
        for (ResolvedEndpoint e : r.endpoints()) {
            groups.add(new EquivalentAddressGroup(e.address(), Attributes.newBuilder()
                    .set(UnitasLoadBalancer.ENDPOINT, e).build()));
        }
        listener.onResult2(ResolutionResult.newBuilder().setAddressesOrError(StatusOr.fromValue(groups))
                .setServiceConfig(serviceConfig).build());
    }

    @Override
    public void shutdown() {
        listener = null;
        if (subscription != null) {
            try {
                subscription.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
