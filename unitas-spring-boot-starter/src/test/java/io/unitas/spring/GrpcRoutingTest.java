package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.grpc.GrpcApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A gRPC service with only the starter: a call into it carries the gateway's stamp (or a routing key) into the
 * handler's context and out on its downstream gRPC call, and the gRPC health service follows this region's health in
 * the routing state.
 */
@SpringBootTest(classes = GrpcApp.class, properties = "spring.main.web-application-type=none")
class GrpcRoutingTest {

    private static final MethodDescriptor<String, String> PLACE = GrpcApp.PLACE;
    private static final MethodDescriptor<String, String> QUOTE = GrpcApp.QUOTE;

    private static ManagedChannel channel;

    @Autowired
    MutableRoutingState state;

    @BeforeAll
    static void connect() {
        channel = InProcessChannelBuilder.forName("orders").build();
    }

    @AfterAll
    static void disconnect() {
        channel.shutdownNow();
    }

    @AfterEach
    void healthy() {
        state.down(null);
    }

    private static String place(String... headers) {
        return call(PLACE, headers);
    }

    private static String quote(String... headers) {
        return call(QUOTE, headers);
    }

    private static String call(MethodDescriptor<String, String> method, String... headers) {
        Metadata metadata = new Metadata();
        for (int i = 0; i < headers.length; i += 2) {
            metadata.put(Metadata.Key.of(headers[i], Metadata.ASCII_STRING_MARSHALLER), headers[i + 1]);
        }
        Channel withHeaders = ClientInterceptors.intercept(channel,
                                                           MetadataUtils.newAttachHeadersInterceptor(metadata));
        return ClientCalls.blockingUnaryCall(withHeaders, method, CallOptions.DEFAULT, "order-1");
    }

    @Test
    void theStamp_isCurrentInTheHandler_andLeavesOnTheDownstreamCall() {
        String answer = quote("x-unitas-unit", "u-us", "x-unitas-region", "us", "x-unitas-origin", "cn",
                              "x-unitas-hops", "2");

        // the region is the one that served the call (this one, eu), as on HTTP
        assertThat(answer).isEqualTo("u-us|eu|cn|2|reserved");
        assertThat(GrpcApp.DOWNSTREAM_SAW.get()).containsAllEntriesOf(Map.of(
                "x-unitas-unit", "u-us", "x-unitas-region", "eu", "x-unitas-origin", "cn", "x-unitas-hops", "2"));
    }

    @Test
    void aCallWithoutAStamp_isPlacedByItsRoutingKey_asAtTheGateway() {
        String answer = quote("x-user-id", "10");

        assertThat(answer).startsWith("u-cn|eu|");
        assertThat(GrpcApp.DOWNSTREAM_SAW.get()).containsEntry("x-unitas-unit", "u-cn")
                                                .containsEntry("x-unitas-region", "eu");
    }

    @Test
    void aCallWithNeitherStampNorKey_hasNoUnit_andTheCallersThreadKeepsItsOwn() {
        assertThat(quote()).isEqualTo("null|null|null|0|reserved");
        assertThat(GrpcApp.DOWNSTREAM_SAW.get()).doesNotContainKey("x-unitas-unit");
        assertThat(RoutingContextHolder.current().unit()).isNull();
    }

    @Test
    void aWriteOfAUsUser_reachingEu_isRefusedWithFailedPrecondition_trailersNamingItsHome_beforeItRuns() {
        int before = GrpcApp.PLACED.get();
        assertThatThrownBy(() -> place("x-user-id", "70"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription())
                            .startsWith("a write of unit u-us reached region eu, which does not take its writes: its"
                                        + " home region is us");
                    Metadata trailers = e.getTrailers();
                    assertThat(trailers.get(GrpcWriteGuard.PROBLEM_KEY))
                            .isEqualTo("urn:unitas:problem:not-home-region");
                    assertThat(trailers.get(GrpcWriteGuard.HOME_KEY)).isEqualTo("us");
                    assertThat(trailers.get(GrpcWriteGuard.UNIT_KEY)).isEqualTo("u-us");
                    assertThat(trailers.get(GrpcWriteGuard.REGION_KEY)).isEqualTo("eu");
                });
        // a stamp claiming this region changes nothing: the routing state decides
        assertThatThrownBy(() -> place("x-unitas-unit", "u-us", "x-unitas-region", "eu"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
        assertThat(GrpcApp.PLACED.get()).as("the handler never ran").isEqualTo(before);

        assertThat(quote("x-user-id", "70")).as("a read (a safe method) is served").startsWith("u-us|eu|");
        assertThat(place("x-user-id", "40")).as("a write at its home").startsWith("u-eu|eu|");
        assertThat(place()).as("a write without a unit").startsWith("null|");
        assertThat(GrpcApp.PLACED.get()).isEqualTo(before + 2);
    }

    @Test
    void aWriteOfAUnitWhoseHomeIsDown_isServedWhereItsWritesFailOver() {
        assertThatThrownBy(() -> place("x-user-id", "5")).isInstanceOf(StatusRuntimeException.class);
        state.down("cn"); // cn's writes fail over to eu, the first of its fallbacks
        assertThat(place("x-user-id", "5")).startsWith("u-cn|eu|");
    }

    @Test
    void theHealthService_followsThisRegionsHealthInTheRoutingState() {
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
        HealthCheckRequest overall = HealthCheckRequest.getDefaultInstance();
        HealthCheckRequest unitas = HealthCheckRequest.newBuilder().setService(UnitasGrpcHealth.SERVICE).build();
        assertThat(health.check(overall).getStatus()).isEqualTo(ServingStatus.SERVING);
        assertThat(health.check(unitas).getStatus()).isEqualTo(ServingStatus.SERVING);

        state.down("us");
        assertThat(health.check(overall).getStatus()).as("another region down").isEqualTo(ServingStatus.SERVING);

        state.down("eu");
        assertThat(health.check(overall).getStatus()).isEqualTo(ServingStatus.NOT_SERVING);
        assertThat(health.check(unitas).getStatus()).isEqualTo(ServingStatus.NOT_SERVING);

        assertThatThrownBy(() -> health.check(HealthCheckRequest.newBuilder().setService("other").build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }
}
