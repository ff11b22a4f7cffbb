package io.unitas.client.grpc;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;

/**
 * The routing context over grpc-java: a server interceptor that reads it from a call's metadata and keeps it current
 * in every callback of that call (gRPC runs them on its executor's threads, one at a time, not on one thread), and a
 * client interceptor that writes the context current when the call is made into its metadata.
 */
public final class RoutingGrpc {

    private RoutingGrpc() {}

    /** Reads the context from each call's metadata; the callbacks of the call run under it. */
    public static ServerInterceptor serverInterceptor(RoutingHeaders headers) {
        return serverInterceptor(headers::read);
    }

    /**
     * Reads the context from each call's metadata with {@code reader}, which looks headers up by name (an ASCII
     * metadata key, any case): a service that also places a call by its routing key, as the gateway does, reads it
     * here. The callbacks of the call run under the context.
     */
    public static ServerInterceptor serverInterceptor(MetadataReader reader) {
        Map<String, Metadata.Key<String>> keys = new ConcurrentHashMap<>();
        Function<String, Metadata.Key<String>> key = name -> Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata metadata,
                                                               ServerCallHandler<Q, R> next) {
                RoutingContext context = reader.read(name -> metadata.get(keys.computeIfAbsent(name, key)));
                ServerCall.Listener<Q> delegate;
                try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
                    delegate = next.startCall(call, metadata);
                }
                return new ScopedListener<>(delegate, context);
            }
        };
    }

    /** Writes the context current when a call is made into the call's metadata. */
    public static ClientInterceptor clientInterceptor(RoutingHeaders headers) {
        Map<String, Metadata.Key<String>> keys = keys(headers);
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options,
                                                         Channel next) {
                RoutingContext context = RoutingContextHolder.current();
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                    @Override
                    public void start(Listener<R> listener, Metadata metadata) {
                        headers.write(context, (name, value) -> {
                            Metadata.Key<String> key = keys.get(name);
                            metadata.discardAll(key);
                            metadata.put(key, value);
                        });
                        super.start(listener, metadata);
                    }
                };
            }
        };
    }

    /** Reads a call's routing context from its metadata, given a lookup of a header's value by name. */
    @FunctionalInterface
    public interface MetadataReader {
        /** The context of a call whose header {@code name} has the value {@code header.apply(name)} (or null). */
        RoutingContext read(Function<String, String> header);
    }

    private static Map<String, Metadata.Key<String>> keys(RoutingHeaders headers) {
        Map<String, Metadata.Key<String>> keys = new HashMap<>();
        headers.names().forEach(n -> keys.put(n, Metadata.Key.of(n, Metadata.ASCII_STRING_MARSHALLER)));
        return Map.copyOf(keys);
    }

    /** Runs each callback of one call under its context, restoring the thread's own after. */
    private static final class ScopedListener<Q> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
        private final RoutingContext context;

        ScopedListener(ServerCall.Listener<Q> delegate, RoutingContext context) {
            super(delegate);
            this.context = context;
        }

        @Override
        public void onMessage(Q message) {
            try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
                super.onMessage(message);
            }
        }

        @Override
        public void onHalfClose() {
            try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
                super.onHalfClose();
            }
        }

        @Override
        public void onCancel() {
            try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
                super.onCancel();
            }
        }

        @Override
        public void onComplete() {
            try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
                super.onComplete();
            }
        }

        @Override
        public void onReady() {
            try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
                super.onReady();
            }
        }
    }
}
