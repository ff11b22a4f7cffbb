package io.unitas.spring.grpc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.UnitasGrpcHealth;
import io.unitas.spring.app.MutableRoutingState;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A gRPC service with only the starter: its server is built with the starter's server interceptor bean and its
 * channel to the downstream service with the client interceptor bean. {@code orders.Orders/Place} (a write) and
 * {@code orders.Orders/Quote} (a read) answer with the context current in the handler and calls {@code inventory.Inventory/Reserve}, which records the metadata it got.
 * The downstream stands for another service: it reads raw metadata, nothing of unitas.
 */
@SpringBootApplication
public class GrpcApp {

    /** A write: not {@linkplain MethodDescriptor#isSafe() safe}. */
    public static final MethodDescriptor<String, String> PLACE = method("orders.Orders/Place", false);
    /** A read: the same answer as {@link #PLACE}, on a safe method. */
    public static final MethodDescriptor<String, String> QUOTE = method("orders.Orders/Quote", true);
    static final MethodDescriptor<String, String> RESERVE = method("inventory.Inventory/Reserve", false);

    /** How many times {@code Place}'s handler ran. */
    public static final java.util.concurrent.atomic.AtomicInteger PLACED = new java.util.concurrent.atomic.AtomicInteger();

    /** The routing headers the downstream service received on its last call. */
    public static final AtomicReference<Map<String, String>> DOWNSTREAM_SAW = new AtomicReference<>(Map.of());

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    /** The downstream service, in process under its own name. */
    @Bean(destroyMethod = "shutdownNow")
    Server inventoryServer() throws IOException {
        ServerServiceDefinition inventory = ServerServiceDefinition.builder("inventory.Inventory")
                .addMethod(RESERVE, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext("reserved");
                    response.onCompleted();
                }))
                .build();
        ServerInterceptor record = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata metadata,
                                                               ServerCallHandler<Q, R> next) {
                Map<String, String> seen = new TreeMap<>();
                for (String key : metadata.keys()) {
                    if (key.startsWith("x-unitas-")) {
                        seen.put(key, metadata.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER)));
                    }
                }
                DOWNSTREAM_SAW.set(seen);
                return next.startCall(call, metadata);
            }
        };
        return InProcessServerBuilder.forName("inventory").addService(ServerInterceptors.intercept(inventory, record))
                .build().start();
    }

    @Bean(destroyMethod = "shutdownNow")
    ManagedChannel inventoryChannel(ClientInterceptor unitasGrpcClientInterceptor) {
        return InProcessChannelBuilder.forName("inventory").intercept(unitasGrpcClientInterceptor).build();
    }

    /** This service's server: its own service and the health service, behind the starter's interceptor. */
    @Bean(destroyMethod = "shutdownNow")
    Server ordersServer(ServerInterceptor unitasGrpcServerInterceptor, ManagedChannel inventoryChannel,
                        UnitasGrpcHealth health) throws IOException {
        ServerCalls.UnaryMethod<String, String> answer = (request, response) -> {
            RoutingContext c = RoutingContextHolder.current();
            String reserved = ClientCalls.blockingUnaryCall(inventoryChannel, RESERVE, CallOptions.DEFAULT, request);
            response.onNext(c.unit() + "|" + c.region() + "|" + c.origin() + "|" + c.hops() + "|" + reserved);
            response.onCompleted();
        };
        ServerServiceDefinition orders = ServerServiceDefinition.builder("orders.Orders")
                .addMethod(PLACE, ServerCalls.asyncUnaryCall((request, response) -> {
                    PLACED.incrementAndGet();
                    answer.invoke(request, response);
                }))
                .addMethod(QUOTE, ServerCalls.asyncUnaryCall(answer))
                .build();
        return InProcessServerBuilder.forName("orders")
                .addService(ServerInterceptors.intercept(orders, unitasGrpcServerInterceptor))
                .addService(health)
                .build().start();
    }

    private static MethodDescriptor<String, String> method(String name, boolean safe) {
        MethodDescriptor.Marshaller<String> text = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(String value) {
                return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public String parse(InputStream stream) {
                try {
                    return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(name).setSafe(safe).setRequestMarshaller(text).setResponseMarshaller(text).build();
    }
}
