package io.unitas.spring;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ManagedChannelProvider;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingHeaders;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write guard's {@code forward} mode over gRPC ({@link GrpcWriteGuard}): a write refused here is relayed, as the
 * same method, to the gRPC server of the region that takes its unit's writes now
 * ({@value #TARGETS}{@code .<region>}), and that region's headers, messages, status and trailers come back as they
 * came. Unary and streaming calls alike, any service: the call's own method descriptor turns the messages back into
 * bytes, so no stubs are needed. As over HTTP ({@link WriteForwarder}), the relayed call carries the routing context's
 * stamp and {@value WriteForwarder#FORWARDED_BY}, and a call that already carries it is never relayed again.
 */
final class GrpcWriteForwarder implements AutoCloseable {

    static final String TARGETS = "unitas.write-guard.forward.grpc-targets";

    private static final Logger log = LoggerFactory.getLogger(GrpcWriteForwarder.class);
    private static final Metadata.Key<String> FORWARDED_TO =
            Metadata.Key.of(WriteForwarder.FORWARDED_TO, Metadata.ASCII_STRING_MARSHALLER);
    // Set by each leg's transport itself, or by the relay: not copied in either direction (an error's
    // grpc-status-details-bin is: it is the other region's answer).
    private static final Set<String> NOT_COPIED = Set.of("content-type", "te", "user-agent", "host", "grpc-timeout",
                                                         "grpc-encoding", "grpc-accept-encoding", "grpc-status",
                                                         "grpc-message", WriteForwarder.FORWARDED_BY,
                                                         WriteForwarder.FORWARDED_TO);

    private final Region here;
    private final Map<Region, String> addresses;
    private final Map<Region, ManagedChannel> channels;
    private final Duration timeout;
    private final RoutingHeaders headers;
    private final ScheduledThreadPoolExecutor timer;

    private GrpcWriteForwarder(Region here, Map<Region, String> addresses, Map<Region, ManagedChannel> channels,
                               Duration timeout, RoutingHeaders headers) {
        this.here = here;
        this.addresses = Map.copyOf(addresses);
        this.channels = Map.copyOf(channels);
        this.timeout = timeout;
        this.headers = headers;
        this.timer = channels.isEmpty() ? null : new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "unitas-grpc-forward-timeout");
            t.setDaemon(true);
            return t;
        });
        if (timer != null) {
            timer.setRemoveOnCancelPolicy(true); // a relay answered in time leaves nothing behind
        }
    }

    /** The relays still waiting for their answer to begin (their timeout armed). */
    int awaitingAnswers() {
        return timer == null ? 0 : timer.getQueue().size();
    }

    /**
     * The forwarder {@code unitas.write-guard.forward.*} describes for the service in {@code region}: a channel to
     * every other region of {@code topology}, or none at all when no gRPC target is set (gRPC writes of another
     * region's unit are then refused, as before there was a gRPC forward).
     *
     * @throws UnitasConfigurationException naming each missing or wrong property, one line each
     */
    static GrpcWriteForwarder of(String region, WriteGuardProperties.Forward settings, Topology topology,
                                 RoutingHeaders headers) {
        Map<String, String> given = settings.getGrpcTargets() == null ? Map.of() : settings.getGrpcTargets();
        if (given.isEmpty()) {
            log.info("unitas.write-guard.mode is forward, but no {} is set: a gRPC write of another region's unit is"
                     + " refused with FAILED_PRECONDITION", TARGETS);
            return new GrpcWriteForwarder(Region.of(region), Map.of(), Map.of(), settings.getTimeout(), headers);
        }
        List<String> problems = new ArrayList<>();
        Duration timeout = WriteForwarder.timeout(settings, problems);
        Map<Region, String> addresses = WriteForwarder.targets(
                TARGETS, given, topology, region, GrpcWriteForwarder::address,
                r -> "host:port of region " + r.id() + "'s gRPC server of this service or of its gateway, e.g."
                     + " wallet-" + r.id() + ".internal:9090",
                r -> "host:port, e.g. wallet-" + r.id() + ".internal:9090", problems);
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        // a channel connects on its first call, and again after a failure: building them all now costs nothing
        Map<Region, ManagedChannel> channels = new HashMap<>();
        try {
            addresses.forEach((r, address) -> {
                ManagedChannelBuilder<?> builder = ManagedChannelBuilder.forTarget(address);
                channels.put(r, (settings.isGrpcPlaintext() ? builder.usePlaintext() : builder.useTransportSecurity())
                        .build());
            });
        } catch (ManagedChannelProvider.ProviderNotFoundException e) {
            throw new UnitasConfigurationException(List.of(
                    TARGETS + ": no gRPC transport on the class path to reach them (expected: grpc-netty-shaded,"
                    + " grpc-netty or grpc-okhttp as a dependency)"));
        }
        return new GrpcWriteForwarder(Region.of(region), addresses, channels, timeout, headers);
    }

    private static String address(String text) {
        try {
            URI uri = URI.create("//" + text);
            boolean hostAndPort = uri.getHost() != null && uri.getPort() > 0 && uri.getUserInfo() == null
                                  && uri.getRawPath().isEmpty() && uri.getRawQuery() == null
                                  && uri.getRawFragment() == null;
            return hostAndPort ? text : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Whether writes that {@code region} takes can be relayed there. */
    boolean reaches(Region region) {
        return region != null && channels.containsKey(region);
    }

    /**
     * Relays {@code call} (a write, with {@code metadata} and the routing {@code context} naming its unit) to
     * {@code target}, which {@link #reaches} it: the listener this call's messages are to go to.
     */
    <Q, R> ServerCall.Listener<Q> relay(ServerCall<Q, R> call, Metadata metadata, Region target,
                                        RoutingContext context) {
        Metadata out = copy(metadata);
        Set<String> routing = Set.copyOf(headers.names());
        routing.forEach(name -> out.discardAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER)));
        headers.write(context, (name, value) -> out.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER),
                                                        value));
        out.put(Metadata.Key.of(WriteForwarder.FORWARDED_BY, Metadata.ASCII_STRING_MARSHALLER), here.id());
        // the caller's own deadline and cancellation apply (the call's context is current here, and a client call
        // started under it takes both); the timeout, as over HTTP, only until the other region's answer begins: a
        // stream may then run as long as the caller lets it
        ClientCall<Q, R> upstream = channels.get(target).newCall(call.getMethodDescriptor(), CallOptions.DEFAULT);
        Relay<Q, R> relay = new Relay<>(call, upstream, target, context.unit());
        relay.deadline = timer.schedule(relay::timedOut, timeout.toNanos(), TimeUnit.NANOSECONDS);
        upstream.start(relay.fromUpstream, out);
        synchronized (relay) {
            upstream.request(1);
            call.request(1);
        }
        return relay.fromCaller;
    }

    /** Every entry of {@code metadata} but those each leg's transport sets itself. */
    private static Metadata copy(Metadata metadata) {
        Metadata out = new Metadata();
        for (String name : metadata.keys()) {
            if (NOT_COPIED.contains(name) || name.startsWith(":")) {
                continue;
            }
            if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
                Metadata.Key<byte[]> key = Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER);
                metadata.getAll(key).forEach(v -> out.put(key, v));
            } else {
                Metadata.Key<String> key = Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
                metadata.getAll(key).forEach(v -> out.put(key, v));
            }
        }
        return out;
    }

    /**
     * One relayed call: the caller's messages go up one at a time, each asked for only once the upstream call is
     * ready for more, and the answer's come back the same way, so neither side buffers what the other cannot take.
     * Every step holds the relay's lock: the two calls' callbacks run on different threads.
     */
    private final class Relay<Q, R> {
        private final ServerCall<Q, R> call;
        private final ClientCall<Q, R> upstream;
        private final Region target;
        private final String unit;
        private boolean callerWaiting; // a message from the caller was not asked for: upstream was not ready
        private boolean upstreamWaiting; // one from upstream was not: the caller was not ready
        private boolean answered; // upstream sent headers: it is the other region's own status that ends the call
        private boolean closed;
        private volatile ScheduledFuture<?> deadline; // until the answer begins; set before the calls start

        Relay(ServerCall<Q, R> call, ClientCall<Q, R> upstream, Region target, String unit) {
            this.call = call;
            this.upstream = upstream;
            this.target = target;
            this.unit = unit;
        }

        final ServerCall.Listener<Q> fromCaller = new ServerCall.Listener<>() {
            @Override
            public void onMessage(Q message) {
                synchronized (Relay.this) {
                    upstream.sendMessage(message);
                    if (upstream.isReady()) {
                        call.request(1);
                    } else {
                        callerWaiting = true;
                    }
                }
            }

            @Override
            public void onHalfClose() {
                synchronized (Relay.this) {
                    upstream.halfClose();
                }
            }

            @Override
            public void onCancel() {
                synchronized (Relay.this) {
                    deadline.cancel(false);
                    closed = true;
                    upstream.cancel("the caller cancelled the call relayed to " + target, null);
                }
            }

            @Override
            public void onReady() {
                synchronized (Relay.this) {
                    if (upstreamWaiting && call.isReady()) {
                        upstreamWaiting = false;
                        upstream.request(1);
                    }
                }
            }
        };

        final ClientCall.Listener<R> fromUpstream = new ClientCall.Listener<>() {
            @Override
            public void onHeaders(Metadata headers) {
                synchronized (Relay.this) {
                    deadline.cancel(false);
                    answered = true;
                    if (!closed) {
                        Metadata back = copy(headers);
                        back.put(FORWARDED_TO, target.id());
                        call.sendHeaders(back);
                    }
                }
            }

            @Override
            public void onMessage(R message) {
                synchronized (Relay.this) {
                    if (closed) {
                        return;
                    }
                    call.sendMessage(message);
                    if (call.isReady()) {
                        upstream.request(1);
                    } else {
                        upstreamWaiting = true;
                    }
                }
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                synchronized (Relay.this) {
                    deadline.cancel(false);
                    if (closed) {
                        return;
                    }
                    closed = true;
                    Metadata back = copy(trailers);
                    back.put(FORWARDED_TO, target.id());
                    call.close(answered ? status : failed(status), back);
                }
            }

            @Override
            public void onReady() {
                synchronized (Relay.this) {
                    if (callerWaiting && upstream.isReady()) {
                        callerWaiting = false;
                        call.request(1);
                    }
                }
            }
        };

        /** No answer began within the timeout: the caller is told so, and the other region's call cancelled. */
        synchronized void timedOut() {
            if (answered || closed) {
                return;
            }
            closed = true;
            Metadata back = new Metadata();
            back.put(FORWARDED_TO, target.id());
            call.close(Status.DEADLINE_EXCEEDED.withDescription(
                    write() + " had no answer within " + timeout.toMillis() + " ms (" + WriteForwarder.TIMEOUT + ")"),
                       back);
            upstream.cancel("no answer within " + WriteForwarder.TIMEOUT, null);
        }

        // A call that ended before the other region answered: say where it was going and which property to check.
        private Status failed(Status status) {
            return switch (status.getCode()) {
                case DEADLINE_EXCEEDED -> status.withDescription(
                        write() + " had no answer within the caller's deadline: " + status.getDescription());
                case UNAVAILABLE -> status.withDescription(
                        write() + " failed: " + status.getDescription() + " (" + TARGETS + "." + target.id() + ")");
                default -> status;
            };
        }

        private String write() {
            return "a write of unit " + unit + " relayed from " + here + " to " + target + " ("
                   + addresses.get(target) + ")";
        }
    }

    /** Closes every channel, not waiting for calls in flight (the server they came through is stopping too). */
    @Override
    public void close() {
        channels.values().forEach(ManagedChannel::shutdownNow);
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
