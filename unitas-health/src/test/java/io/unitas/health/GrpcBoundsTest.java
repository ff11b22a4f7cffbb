package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

/**
 * The health agent's gRPC port, bounded: connections past the cap are closed at once, a connection without calls
 * is closed after the idle time, and one that never finishes its handshake after the handshake time; clients
 * within the bounds are answered throughout.
 */
class GrpcBoundsTest {

    private static final int CAP = 4;

    private ServerSocket probed;
    private DefaultHealthServer server;
    private final List<Socket> sockets = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();

    @BeforeEach
    void probed() throws IOException {
        probed = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    private void start(Duration idle, Duration handshake) {
        String yaml = "region: eu\nlisten: {address: 127.0.0.1, http: 0, grpc: 0}\n"
                      + "checks:\n  - {name: a, kind: tcp, target: '127.0.0.1:" + probed.getLocalPort() + "'}\n";
        server = DefaultHealthServer.start(HealthConfig.parse("health.yaml", yaml), Clock.systemUTC(),
                                           UnitLagSource.NONE, new GrpcConnections(CAP, idle, handshake, 16));
    }

    @AfterEach
    void stop() throws IOException {
        channels.forEach(ManagedChannel::shutdownNow);
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
        probed.close();
    }

    private Socket raw() throws IOException {
        Socket s = new Socket("127.0.0.1", server.grpcPort());
        s.setSoTimeout(5_000);
        sockets.add(s);
        return s;
    }

    private boolean check() {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext()
                                                    .build();
        channels.add(channel);
        try {
            HealthGrpc.newBlockingStub(channel).withDeadlineAfter(java.time.Duration.ofSeconds(5))
                      .check(HealthCheckRequest.newBuilder().setService("").build());
            return true;
        } catch (io.grpc.StatusRuntimeException e) {
            return false;
        } finally {
            channel.shutdownNow();
        }
    }

    private static boolean closedByServer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    @Test
    void aConnectionPastTheCap_isClosedAtOnce_andAPlaceFreedIsTakenAgain() throws Exception {
        start(Duration.ofMinutes(1), Duration.ofMinutes(1));
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < CAP; i++) {
            held.add(raw());
        }
        Eventually.within(Duration.ofSeconds(5), n -> n == CAP, () -> server.grpcConnections().open());

        Socket over = raw();
        assertThat(closedByServer(over)).as("the connection past the cap is closed").isTrue();
        assertThat(server.grpcConnections().refused()).isEqualTo(1);

        held.get(0).close();
        Eventually.within(Duration.ofSeconds(5), n -> n < CAP, () -> server.grpcConnections().open());
        assertThat(check()).as("a health check in the freed place").isTrue();
    }

    @Test
    void aConnectionThatNeverFinishesItsHandshake_isClosed() throws Exception {
        start(Duration.ofMinutes(1), Duration.ofMillis(500));
        Socket silent = raw();
        assertThat(closedByServer(silent)).as("closed at the handshake time, well within the read's 5 s").isTrue();
        Eventually.within(Duration.ofSeconds(5), n -> n == 0, () -> server.grpcConnections().open());
    }

    @Test
    void aConnectionWithoutCalls_isClosedAfterTheIdleTime() {
        start(Duration.ofMillis(300), Duration.ofMinutes(1));
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
        channels.add(channel);
        HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.newBuilder().setService("").build());
        assertThat(server.grpcConnections().open()).isEqualTo(1);

        Eventually.within(Duration.ofSeconds(5), n -> n == 0, () -> server.grpcConnections().open());
        assertThat(check()).isTrue();
    }
}
