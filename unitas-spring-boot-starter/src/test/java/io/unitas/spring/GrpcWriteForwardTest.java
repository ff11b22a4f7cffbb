package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.grpcforward.GrpcForwardApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code unitas.write-guard.mode: forward} over gRPC, two real servers (eu and us) on ports: a us user's write that
 * reaches eu runs in us, and us's headers, messages, status and trailers come back as us gave them, unary and
 * streaming; a read is served where it arrives; a call relayed once is refused rather than relayed again; a region
 * that cannot be reached, or does not begin to answer within the timeout, ends the call.
 */
class GrpcWriteForwardTest {

    private static ServerSocket silentCn;
    private static ConfigurableApplicationContext us;
    private static ConfigurableApplicationContext eu;
    private static ManagedChannel toEu;
    private static ManagedChannel toUs;

    @BeforeAll
    static void start() throws IOException {
        // cn's "server": accepts connections (the kernel's backlog) and never answers
        silentCn = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort(); // nothing listens there once closed: eu as us sees it, unreachable
        }
        String cn = "--unitas.write-guard.forward.grpc-targets.cn=127.0.0.1:" + silentCn.getLocalPort();
        // us forwards too: without the one-relay rule it would pass on what eu relayed to it
        us = app("us", cn, "--unitas.write-guard.forward.grpc-targets.eu=127.0.0.1:" + closed);
        eu = app("eu", cn, "--unitas.write-guard.forward.grpc-targets.us=127.0.0.1:" + port(us));
        toEu = channel(eu);
        toUs = channel(us);
    }

    private static ConfigurableApplicationContext app(String region, String... targets) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "--unitas.region=" + region, "--unitas.write-guard.mode=forward",
                "--unitas.write-guard.forward.grpc-plaintext=true", "--unitas.write-guard.forward.timeout=1s"));
        args.addAll(List.of(targets));
        return new SpringApplicationBuilder(GrpcForwardApp.class).web(WebApplicationType.NONE)
                .run(args.toArray(String[]::new));
    }

    private static int port(ConfigurableApplicationContext context) {
        return context.getBean(Server.class).getPort();
    }

    private static ManagedChannel channel(ConfigurableApplicationContext context) {
        return Grpc.newChannelBuilderForAddress("127.0.0.1", port(context), InsecureChannelCredentials.create())
                   .build();
    }

    @AfterAll
    static void stop() throws IOException {
        for (ManagedChannel c : new ManagedChannel[] {toEu, toUs}) {
            if (c != null) {
                c.shutdownNow();
            }
        }
        for (ConfigurableApplicationContext c : new ConfigurableApplicationContext[] {eu, us}) {
            if (c != null) {
                c.close();
            }
        }
        silentCn.close();
    }

    @AfterEach
    void healthy() {
        us.getBean(MutableRoutingState.class).move(null, null);
    }

    /** One unary call with {@code headers}; its response headers and trailers land in the two references. */
    private static String call(ManagedChannel to, MethodDescriptor<String, String> method, String request,
                               AtomicReference<Metadata> headersBack, AtomicReference<Metadata> trailersBack,
                               String... headers) {
        Metadata metadata = new Metadata();
        for (int i = 0; i < headers.length; i += 2) {
            metadata.put(Metadata.Key.of(headers[i], Metadata.ASCII_STRING_MARSHALLER), headers[i + 1]);
        }
        metadata.put(GrpcForwardApp.BLOB, "opaque".getBytes(StandardCharsets.UTF_8));
        Channel channel = ClientInterceptors.intercept(to, MetadataUtils.newAttachHeadersInterceptor(metadata),
                                                       MetadataUtils.newCaptureMetadataInterceptor(headersBack,
                                                                                                   trailersBack));
        return ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                                             request);
    }

    private static String place(ManagedChannel to, String request, String... headers) {
        return call(to, GrpcForwardApp.PLACE, request, new AtomicReference<>(), new AtomicReference<>(), headers);
    }

    private static int placed(String region) {
        return GrpcForwardApp.PLACED.computeIfAbsent(region, r -> new AtomicInteger()).get();
    }

    @Test
    void aUsUsersWriteReachingEu_runsInUs_andItsHeadersAnswerAndTrailersComeBack() {
        int inUs = placed("us");
        int inEu = placed("eu");
        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();

        String answer = call(toEu, GrpcForwardApp.PLACE, "order-1", headers, trailers,
                             "x-user-id", "70", "x-request-id", "r-9");

        // served in us, under u-us; the stamp eu placed the call with travels, and the one-relay marker, and the
        // caller's own headers (text and binary)
        assertThat(answer).isEqualTo("u-us|us|eu|u-us|r-9|opaque|order-1");
        assertThat(headers.get().get(GrpcForwardApp.SERVED_IN)).isEqualTo("us");
        assertThat(headers.get().get(Metadata.Key.of("x-unitas-forwarded-to", Metadata.ASCII_STRING_MARSHALLER)))
                .isEqualTo("us");
        assertThat(trailers.get().get(GrpcForwardApp.RECEIPT)).isEqualTo("r-order-1");
        assertThat(placed("us")).isEqualTo(inUs + 1);
        assertThat(placed("eu")).as("eu's handler never ran").isEqualTo(inEu);
    }

    @Test
    void anErrorInUs_comesBackWithItsStatusAndTrailers() {
        assertThatThrownBy(() -> place(toEu, "bad", "x-user-id", "70"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).isEqualTo("no such amount");
                    assertThat(e.getTrailers().get(GrpcForwardApp.WHY)).isEqualTo("amount below zero");
                    assertThat(e.getTrailers().get(GrpcForwardApp.DETAILS)).as("an error's details")
                            .isEqualTo("rich details".getBytes(StandardCharsets.UTF_8));
                });
    }

    @Test
    void aStreamingWrite_relaysEveryMessageBothWays_inOrder() throws Exception {
        Metadata metadata = new Metadata();
        metadata.put(Metadata.Key.of("x-user-id", Metadata.ASCII_STRING_MARSHALLER), "70");
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        Channel channel = ClientInterceptors.intercept(toEu, MetadataUtils.newAttachHeadersInterceptor(metadata),
                                                       MetadataUtils.newCaptureMetadataInterceptor(
                                                               new AtomicReference<>(), trailers));
        List<String> answers = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(GrpcForwardApp.PLACE_MANY, CallOptions.DEFAULT), new StreamObserver<>() {
                    @Override
                    public void onNext(String value) {
                        answers.add(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                        failed.set(t);
                        done.countDown();
                    }

                    @Override
                    public void onCompleted() {
                        done.countDown();
                    }
                });
        int n = 300;
        for (int i = 0; i < n; i++) {
            requests.onNext("m" + i + "-" + "x".repeat(2000));
        }
        requests.onCompleted();

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(failed.get()).isNull();
        assertThat(answers).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(answers.get(i)).startsWith("us:m" + i + "-");
        }
        assertThat(trailers.get().get(GrpcForwardApp.COUNT)).isEqualTo(Integer.toString(n));
    }

    @Test
    void aStreamRunsPastTheTimeout_andTheCallerCancelling_cancelsTheRelayedCallInUs() throws Exception {
        GrpcForwardApp.cancelledInUs = new CountDownLatch(1);
        Metadata metadata = new Metadata();
        metadata.put(Metadata.Key.of("x-user-id", Metadata.ASCII_STRING_MARSHALLER), "70");
        ClientCall<String, String> call = ClientInterceptors.intercept(
                toEu, MetadataUtils.newAttachHeadersInterceptor(metadata))
                .newCall(GrpcForwardApp.PLACE_MANY, CallOptions.DEFAULT);
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(2);
        AtomicReference<Status> closed = new AtomicReference<>();
        call.start(new ClientCall.Listener<>() {
            @Override
            public void onMessage(String message) {
                first.countDown();
                second.countDown();
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                closed.set(status);
            }
        }, new Metadata());
        call.request(10);
        call.sendMessage("one");

        assertThat(first.await(5, TimeUnit.SECONDS)).as("us answered the first message").isTrue();
        // the timeout ends a call only until its answer begins: once us answered, no timeout is armed for it
        GrpcWriteForwarder forwarder = eu.getBean(GrpcWriteForwarder.class);
        io.unitas.testkit.Await.until("the relay's timeout disarmed", java.time.Duration.ofSeconds(5),
                                      () -> forwarder.awaitingAnswers() == 0);
        call.sendMessage("two");
        assertThat(second.await(5, TimeUnit.SECONDS)).as("us answered the second message").isTrue();
        call.cancel("changed my mind", null);
        assertThat(GrpcForwardApp.cancelledInUs.await(5, TimeUnit.SECONDS)).as("us saw the cancellation").isTrue();
    }

    @Test
    void aRead_isServedWhereItArrives_andAWriteEuTakes_isNotRelayed() {
        assertThat(call(toEu, GrpcForwardApp.QUOTE, "q", new AtomicReference<>(), new AtomicReference<>(),
                        "x-user-id", "70")).isEqualTo("eu");
        AtomicReference<Metadata> headers = new AtomicReference<>();
        assertThat(call(toEu, GrpcForwardApp.PLACE, "order-2", headers, new AtomicReference<>(), "x-user-id", "40"))
                .startsWith("u-eu|eu|null|");
        assertThat(headers.get().get(Metadata.Key.of("x-unitas-forwarded-to", Metadata.ASCII_STRING_MARSHALLER)))
                .isNull();
    }

    @Test
    void aCallThatArrivesRelayed_isRefusedHere_notRelayedAgain() {
        int inUs = placed("us");
        assertThatThrownBy(() -> place(toEu, "order-3", "x-user-id", "70", "x-unitas-forwarded-by", "cn"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription()).contains("it was forwarded here by cn",
                                                                        "a write is forwarded once");
                    assertThat(e.getTrailers().get(GrpcWriteGuard.REGION_KEY)).isEqualTo("eu");
                    assertThat(e.getTrailers().get(GrpcWriteGuard.FORWARDED_BY_KEY)).isEqualTo("cn");
                });
        assertThat(placed("us")).isEqualTo(inUs);
    }

    @Test
    void whenTheRegionsDisagree_aRelayedCallIsRefused_notRelayedBack() {
        // us has seen u-us move to cn (a switchover eu has not seen yet): it refuses what eu relays rather than
        // relay it on to cn
        us.getBean(MutableRoutingState.class).move("u-us", "cn");

        assertThatThrownBy(() -> place(toEu, "order-4", "x-user-id", "70"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getTrailers().get(GrpcWriteGuard.REGION_KEY)).isEqualTo("us");
                    assertThat(e.getTrailers().get(GrpcWriteGuard.FORWARDED_BY_KEY)).isEqualTo("eu");
                    assertThat(e.getTrailers().get(GrpcWriteGuard.PROBLEM_KEY))
                            .isEqualTo("urn:unitas:problem:not-home-region");
                    assertThat(e.getTrailers().get(Metadata.Key.of("x-unitas-forwarded-to",
                                                                   Metadata.ASCII_STRING_MARSHALLER)))
                            .isEqualTo("us");
                });
    }

    @Test
    void aRegionThatCannotBeReached_isUnavailable_namingTheProperty() {
        long start = System.nanoTime();
        // us relays eu's writes to a port nothing listens on
        assertThatThrownBy(() -> place(toUs, "order-5", "x-user-id", "40"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(e.getStatus().getDescription()).contains(
                            "a write of unit u-eu relayed from us to eu (127.0.0.1:",
                            "(unitas.write-guard.forward.grpc-targets.eu)");
                });
        assertThat((System.nanoTime() - start) / 1_000_000).as("within the timeout, and some").isLessThan(5_000);
    }

    @Test
    void aRegionThatDoesNotAnswer_isDeadlineExceeded_atTheTimeout() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> place(toEu, "order-6", "x-user-id", "5"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
                    assertThat(e.getStatus().getDescription()).contains(
                            "a write of unit u-cn relayed from eu to cn",
                            "had no answer within 1000 ms (unitas.write-guard.forward.timeout");
                });
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMs).as("bounded by the timeout").isGreaterThanOrEqualTo(900).isLessThan(10_000);
    }
}
