package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

/**
 * The standing check of the health agent's gRPC port against a client that sends calls and reads nothing: about
 * 20 MB of HTTP/2 frames on one connection, each pair a complete {@code Check} call (HEADERS, then DATA ending the
 * stream), no frame of the server's ever read and no flow-control window ever given back. The agent must not
 * gather the calls or their answers in the heap (it stops reading, refuses the streams past its call cap, or closes
 * the connection) and must keep answering other clients.
 */
class GrpcFloodTest {

    private static final long ATTACK_BYTES = 20L << 20;
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private ServerSocket probed;
    private HealthServer server;

    @BeforeEach
    void start() throws IOException {
        probed = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        String yaml = "region: eu\nlisten: {address: 127.0.0.1, http: 0, grpc: 0}\n"
                      + "checks:\n  - {name: a, kind: tcp, target: '127.0.0.1:" + probed.getLocalPort() + "'}\n";
        server = HealthServer.start(HealthConfig.parse("health.yaml", yaml), Clock.systemUTC());
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        probed.close();
    }

    @Test
    void twentyMegabytesOfCallsNeverRead_areNotGatheredInTheHeap_andOthersAreAnswered() throws Exception {
        long heapBefore = usedHeapAfterGc();
        try (Socket attacker = new Socket()) {
            attacker.setReceiveBufferSize(4096);
            attacker.connect(new InetSocketAddress("127.0.0.1", server.grpcPort()));
            AtomicLong sent = new AtomicLong();
            AtomicBoolean closed = new AtomicBoolean();
            Thread sender = new Thread(() -> {
                try {
                    OutputStream out = attacker.getOutputStream();
                    out.write(PREFACE);
                    out.write(frame(0x4, 0, 0, new byte[0])); // SETTINGS, none changed
                    int stream = 1;
                    while (sent.get() < ATTACK_BYTES) {
                        ByteArrayOutputStream calls = new ByteArrayOutputStream();
                        for (int i = 0; i < 1_000; i++, stream += 2) {
                            calls.writeBytes(frame(0x1, 0x4, stream, CHECK_HEADERS)); // HEADERS, END_HEADERS
                            calls.writeBytes(frame(0x0, 0x1, stream, new byte[5])); // an empty request, END_STREAM
                        }
                        out.write(calls.toByteArray());
                        sent.addAndGet(calls.size());
                    }
                } catch (IOException e) {
                    closed.set(true); // closed by the agent (or the test): either way the attack is over
                }
            }, "grpc-flood");
            sender.setDaemon(true);
            sender.start();

            long last = -1;
            while (sender.isAlive() && sent.get() != last) {
                last = sent.get();
                sender.join(2_000);
            }
            long grown = usedHeapAfterGc() - heapBefore;
            // the calls were taken as calls: the 17th (stream 33), past the cap of 16 calls, was refused
            List<int[]> frames = framesSent(attacker);
            assertThat(frames).as("frames the agent sent (type, stream, GOAWAY's error code)")
                              .anySatisfy(f -> assertThat(f).startsWith(0x3, 33));
            ManagedChannel other = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext()
                                                      .build();
            try {
                HealthCheckResponse answer = HealthGrpc.newBlockingStub(other)
                        .withDeadlineAfter(java.time.Duration.ofSeconds(10))
                        .check(HealthCheckRequest.newBuilder().setService("").build());
                assertThat(answer.getStatus()).as("another client's check, while the attack holds").isNotNull();
            } finally {
                other.shutdownNow();
            }
            System.out.printf("health gRPC flood: %,d of %,d bytes sent, %s; heap %+,d bytes; frames back: %s%n",
                              sent.get(), ATTACK_BYTES, closed.get() ? "then closed" : "then held", grown,
                              frames.stream().map(java.util.Arrays::toString).toList());
            assertThat(sent.get() < ATTACK_BYTES || closed.get())
                    .as("the agent stopped reading or closed the connection before 20 MB").isTrue();
            assertThat(grown).as("heap grown while the attacker is held").isLessThan(32L << 20);
        }
    }

    /**
     * Type and stream of each whole frame the agent sent (and a GOAWAY's error code), read until the socket closes or
     * 2 s pass silent.
     */
    private static List<int[]> framesSent(Socket s) throws IOException {
        s.setSoTimeout(2_000);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buffer = new byte[65_536];
        try {
            for (int n; (n = s.getInputStream().read(buffer)) >= 0; ) {
                got.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // a timeout, or the agent's reset: what arrived before it is kept
        }
        byte[] b = got.toByteArray();
        List<int[]> frames = new ArrayList<>();
        for (int at = 0; at + 9 <= b.length; ) {
            int length = (b[at] & 0xff) << 16 | (b[at + 1] & 0xff) << 8 | b[at + 2] & 0xff;
            if (at + 9 + length > b.length) {
                break;
            }
            int stream = (b[at + 5] & 0x7f) << 24 | (b[at + 6] & 0xff) << 16 | (b[at + 7] & 0xff) << 8
                         | b[at + 8] & 0xff;
            int type = b[at + 3] & 0xff;
            frames.add(type == 0x7 && length >= 8 // GOAWAY: last stream, then its error code
                       ? new int[] {type, stream, (b[at + 13] & 0xff) << 24 | (b[at + 14] & 0xff) << 16
                                                  | (b[at + 15] & 0xff) << 8 | b[at + 16] & 0xff}
                       : new int[] {type, stream});
            at += 9 + length;
        }
        return frames;
    }

    /** The request headers of a {@code Check} call, as HPACK literals without indexing (no Huffman coding). */
    private static final byte[] CHECK_HEADERS = headers(":method", "POST", ":scheme", "http",
                                                        ":path", "/grpc.health.v1.Health/Check",
                                                        ":authority", "health", "content-type", "application/grpc",
                                                        "te", "trailers");

    private static byte[] headers(String... namesAndValues) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            out.write(0); // literal header field without indexing, new name
            for (String s : new String[] {namesAndValues[i], namesAndValues[i + 1]}) {
                byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
                out.write(bytes.length); // under 127: the 7-bit prefix holds it
                out.writeBytes(bytes);
            }
        }
        return out.toByteArray();
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (stream >>> 24);
        f[6] = (byte) (stream >>> 16);
        f[7] = (byte) (stream >>> 8);
        f[8] = (byte) stream;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
