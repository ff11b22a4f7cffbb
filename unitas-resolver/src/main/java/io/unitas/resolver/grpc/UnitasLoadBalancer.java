package io.unitas.resolver.grpc;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.grpc.Attributes;
import io.grpc.ConnectivityState;
import io.grpc.ConnectivityStateInfo;
import io.grpc.EquivalentAddressGroup;
import io.grpc.LoadBalancer;
import io.grpc.Status;
import io.unitas.core.endpoint.EndpointPicker;
import io.unitas.core.endpoint.EndpointState;
import io.unitas.resolver.ResolvedEndpoint;

/**
 * One subchannel per endpoint; the picker is the core's {@link EndpointPicker} over the READY ones, so a priority
 * whose endpoints cannot connect gives way to the next without asking DNS again. Runs in the channel's
 * synchronization context.
 */
final class UnitasLoadBalancer extends LoadBalancer {

    /** What the name resolver knows of an address. */
    static final Attributes.Key<ResolvedEndpoint> ENDPOINT = Attributes.Key.create("unitas.endpoint");

    private final Helper helper;
    private final Map<List<SocketAddress>, Sub> subs = new HashMap<>();
    private Status lastError = Status.UNAVAILABLE.withDescription("no endpoint connected yet");

    UnitasLoadBalancer(Helper helper) {
        this.helper = helper;
    }

    private static final class Sub {
        final Subchannel channel;
        ResolvedEndpoint endpoint;
        ConnectivityStateInfo state = ConnectivityStateInfo.forNonError(ConnectivityState.IDLE);

        Sub(Subchannel channel, ResolvedEndpoint endpoint) {
            this.channel = channel;
            this.endpoint = endpoint;
        }
    }

    @Override
    public Status acceptResolvedAddresses(ResolvedAddresses resolved) {
        List<EquivalentAddressGroup> groups = resolved.getAddresses();
        if (groups.isEmpty()) {
            Status s = Status.UNAVAILABLE.withDescription("the name resolver gave no address");
            handleNameResolutionError(s);
            return s;
        }
        Set<List<SocketAddress>> seen = new HashSet<>();
        for (EquivalentAddressGroup g : groups) {
            List<SocketAddress> key = g.getAddresses();
            seen.add(key);
            ResolvedEndpoint e = g.getAttributes().get(ENDPOINT);
            Sub s = subs.get(key);
            if (s == null) {
                Subchannel ch = helper.createSubchannel(CreateSubchannelArgs.newBuilder()
                        .setAddresses(new EquivalentAddressGroup(key)).build());
                Sub created = new Sub(ch, e);
                subs.put(key, created);
                ch.start(info -> {
                    created.state = info;
                    if (info.getState() == ConnectivityState.TRANSIENT_FAILURE) {
                        lastError = info.getStatus();
                    }
                    if (info.getState() == ConnectivityState.IDLE) {
                        created.channel.requestConnection();
                    }
                    update();
                });
                ch.requestConnection();
            } else {
                s.endpoint = e;
            }
        }
        subs.entrySet().removeIf(me -> {
            if (!seen.contains(me.getKey())) {
                me.getValue().channel.shutdown();
                return true;
            }
            return false;
        });
        update();
        return Status.OK;
    }

    @Override
    public void handleNameResolutionError(Status error) {
        lastError = error;
        if (subs.values().stream().noneMatch(s -> s.state.getState() == ConnectivityState.READY)) {
            helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
                    new FixedResultPicker(PickResult.withError(error)));
        }
    }

    @Override
    public void shutdown() {
        subs.values().forEach(s -> s.channel.shutdown());
        subs.clear();
    }

    private void update() {
        List<Subchannel> ready = new ArrayList<>();
        List<EndpointPicker.Candidate> candidates = new ArrayList<>();
        boolean connecting = false;
        for (Sub s : subs.values()) {
            ConnectivityState st = s.state.getState();
            if (st == ConnectivityState.READY) {
                ResolvedEndpoint e = s.endpoint;
                ready.add(s.channel);
                candidates.add(e == null ? new EndpointPicker.Candidate(0, 1, EndpointState.HEALTHY)
                        : new EndpointPicker.Candidate(e.priority(), e.effectiveWeight(), e.state()));
            } else if (st == ConnectivityState.CONNECTING || st == ConnectivityState.IDLE) {
                connecting = true;
            }
        }
        if (!ready.isEmpty()) {
            helper.updateBalancingState(ConnectivityState.READY, new WeightedPicker(ready, EndpointPicker.of(candidates)));
        } else if (connecting) {
            helper.updateBalancingState(ConnectivityState.CONNECTING, new FixedResultPicker(PickResult.withNoResult()));
        } else {
            helper.updateBalancingState(ConnectivityState.TRANSIENT_FAILURE,
                    new FixedResultPicker(PickResult.withError(lastError)));
        }
    }

    private static final class WeightedPicker extends SubchannelPicker {
        private final List<Subchannel> ready;
        private final EndpointPicker picker;

        WeightedPicker(List<Subchannel> ready, EndpointPicker picker) {
            this.ready = ready;
            this.picker = picker;
        }

        @Override
        public PickResult pickSubchannel(PickSubchannelArgs args) {
            return PickResult.withSubchannel(ready.get(picker.pick(ThreadLocalRandom.current())));
        }
    }
}
