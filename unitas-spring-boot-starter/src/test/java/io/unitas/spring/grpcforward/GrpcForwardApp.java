package io.unitas.spring.grpcforward;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * An orders service over gRPC, one instance per region (its region by {@code unitas.region}), on a real port behind
 * the starter's server interceptor. {@code Place} (a unary write) answers with the context it ran under, the stamp
 * and forwarding marker it arrived with and a header it was sent, in a header and a trailer of its own; {@code bad}
 * is refused with INVALID_ARGUMENT and a trailer. {@code PlaceMany} (a streaming write) answers each message.
 * {@code Quote} (a read) answers with the region that served it.
 */
@SpringBootApplication
public class GrpcForwardApp {

    public static final MethodDescriptor<String, String> PLACE =
            method("orders.Orders/Place", MethodDescriptor.MethodType.UNARY, false);
    public static final MethodDescriptor<String, String> PLACE_MANY =
            method("orders.Orders/PlaceMany", MethodDescriptor.MethodType.BIDI_STREAMING, false);
    public static final MethodDescriptor<String, String> QUOTE =
            method("orders.Orders/Quote", MethodDescriptor.MethodType.UNARY, true);

    public static final Metadata.Key<String> SERVED_IN = ascii("x-served-in");
    public static final Metadata.Key<String> RECEIPT = ascii("x-receipt");
    public static final Metadata.Key<String> WHY = ascii("x-why");
    public static final Metadata.Key<String> COUNT = ascii("x-count");
    public static final Metadata.Key<String> REQUEST_ID = ascii("x-request-id");
    public static final Metadata.Key<byte[]> DETAILS =
            Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);
    public static final Metadata.Key<byte[]> BLOB = Metadata.Key.of("x-blob-bin", Metadata.BINARY_BYTE_MARSHALLER);

    /** Writes each region's handlers ran, {@code Place} and {@code PlaceMany} alike. */
    public static final Map<String, AtomicInteger> PLACED = new ConcurrentHashMap<>();
    /** Counted down when a {@code PlaceMany} call is cancelled in us. */
    public static volatile CountDownLatch cancelledInUs = new CountDownLatch(1);

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    @Bean(destroyMethod = "shutdownNow")
    Server ordersServer(ServerInterceptor unitasGrpcServerInterceptor, @Value("${unitas.region}") String region)
            throws IOException {
        ServerServiceDefinition orders = ServerServiceDefinition.builder("orders.Orders")
                .addMethod(PLACE, place(region))
                .addMethod(PLACE_MANY, placeMany(region))
                .addMethod(QUOTE, (call, headers) -> unary(call, request -> region))
                .build();
        return Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(ServerInterceptors.intercept(orders, unitasGrpcServerInterceptor))
                .build().start();
    }

    private static ServerCallHandler<String, String> place(String region) {
        return (call, headers) -> unary(call, request -> {
            if (request.equals("bad")) {
                Metadata trailers = new Metadata();
                trailers.put(WHY, "amount below zero");
                trailers.put(DETAILS, "rich details".getBytes(StandardCharsets.UTF_8));
                call.close(Status.INVALID_ARGUMENT.withDescription("no such amount"), trailers);
                return null;
            }
            PLACED.computeIfAbsent(region, r -> new AtomicInteger()).incrementAndGet();
            RoutingContext c = RoutingContextHolder.current();
            Metadata h = new Metadata();
            h.put(SERVED_IN, region);
            call.sendHeaders(h);
            byte[] blob = headers.get(BLOB);
            return String.join("|", c.unit(), c.region(), headers.get(ascii("x-unitas-forwarded-by")),
                               headers.get(ascii("x-unitas-unit")), headers.get(REQUEST_ID),
                               blob == null ? null : new String(blob, StandardCharsets.UTF_8), request);
        });
    }

    /** Answers the one request with {@code answer}'s (headers sent when not yet; {@code null}: the call is closed). */
    private static ServerCall.Listener<String> unary(ServerCall<String, String> call,
                                                     java.util.function.Function<String, String> answer) {
        call.request(1);
        return new ServerCall.Listener<>() {
            String request;

            @Override
            public void onMessage(String message) {
                request = message;
            }

            @Override
            public void onHalfClose() {
                String a = answer.apply(request);
                if (a == null) {
                    return;
                }
                try {
                    call.sendHeaders(new Metadata());
                } catch (IllegalStateException sent) {
                    // the handler sent its own
                }
                call.sendMessage(a);
                Metadata trailers = new Metadata();
                trailers.put(RECEIPT, "r-" + request);
                call.close(Status.OK, trailers);
            }
        };
    }

    private static ServerCallHandler<String, String> placeMany(String region) {
        return (call, headers) -> {
            call.sendHeaders(new Metadata());
            call.request(1);
            return new ServerCall.Listener<>() {
                int count;

                @Override
                public void onMessage(String message) {
                    count++;
                    PLACED.computeIfAbsent(region, r -> new AtomicInteger()).incrementAndGet();
                    call.sendMessage(region + ":" + message);
                    call.request(1);
                }

                @Override
                public void onHalfClose() {
                    Metadata trailers = new Metadata();
                    trailers.put(COUNT, Integer.toString(count));
                    call.close(Status.OK, trailers);
                }

                @Override
                public void onCancel() {
                    if (region.equals("us")) {
                        cancelledInUs.countDown();
                    }
                }
            };
        };
    }

    private static Metadata.Key<String> ascii(String name) {
        return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
    }

    private static MethodDescriptor<String, String> method(String name, MethodDescriptor.MethodType type,
                                                           boolean safe) {
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
        return MethodDescriptor.<String, String>newBuilder().setType(type).setFullMethodName(name).setSafe(safe)
                .setRequestMarshaller(text).setResponseMarshaller(text).build();
    }
}
