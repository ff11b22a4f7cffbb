package io.unitas.client.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A gRPC service that calls another: the context arrives in metadata, is current in the handler, and leaves on the
 * next call; the server's pooled thread forgets it between calls.
 */
class RoutingGrpcTest {

    private static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
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

    private static MethodDescriptor<String, String> method(String name) {
        return MethodDescriptor.<String, String>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName("test.Routing/" + name).setRequestMarshaller(TEXT).setResponseMarshaller(TEXT)
                .build();
    }

    private static final MethodDescriptor<String, String> SEEN = method("Seen");
    private static final MethodDescriptor<String, String> FORWARD = method("Forward");

    private final String name = InProcessServerBuilder.generateName();
    private final ExecutorService serverThread = Executors.newSingleThreadExecutor();
    private Server server;
    private ManagedChannel channel;
    private Channel stamped;

    @BeforeEach
    void start() throws IOException {
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        stamped = ClientInterceptors.intercept(channel, RoutingGrpc.clientInterceptor(RoutingHeaders.DEFAULTS));
        ServerServiceDefinition service = ServerServiceDefinition.builder("test.Routing")
                .addMethod(SEEN, ServerCalls.asyncUnaryCall((request, response) -> {
                    RoutingContext c = RoutingContextHolder.current();
                    response.onNext(c.unit() + "|" + c.region() + "|" + c.hops());
                    response.onCompleted();
                }))
                // the next call is made from the handler without blocking the server's one thread
                .addMethod(FORWARD, ServerCalls.asyncUnaryCall((request, response) -> ClientCalls.asyncUnaryCall(
                        stamped.newCall(SEEN, io.grpc.CallOptions.DEFAULT), "", response)))
                .build();
        server = InProcessServerBuilder.forName(name).executor(serverThread)
                .addService(ServerInterceptors.intercept(service,
                                                         RoutingGrpc.serverInterceptor(RoutingHeaders.DEFAULTS)))
                .build().start();
    }

    @AfterEach
    void stop() {
        channel.shutdownNow();
        server.shutdownNow();
        serverThread.shutdownNow();
    }

    private String call(MethodDescriptor<String, String> method) {
        return ClientCalls.blockingUnaryCall(stamped, method, io.grpc.CallOptions.DEFAULT, "");
    }

    @Test
    void theContext_arrivesInMetadata_andLeavesOnTheNextCall() {
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(new RoutingContext("u-cn", "cn", "eu", 1,
                                                                                         null))) {
            assertThat(call(SEEN)).isEqualTo("u-cn|cn|1");
            assertThat(call(FORWARD)).isEqualTo("u-cn|cn|1");
        }
    }

    @Test
    void theServersPooledThread_forgetsOneCallsUnitBeforeTheNext() {
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(new RoutingContext("u-us", "us", null, 0,
                                                                                         null))) {
            assertThat(call(SEEN)).isEqualTo("u-us|us|0");
        }
        assertThat(call(SEEN)).isEqualTo("null|null|0");
        assertThat(call(FORWARD)).isEqualTo("null|null|0");
    }
}
