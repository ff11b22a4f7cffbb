package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.unitas.core.Region;

/**
 * An HTTP/2 client cannot make the gateway send upstream more than a connection's share: the gateway advertises a
 * concurrent-stream limit (which Netty enforces with REFUSED_STREAM), and a client that resets streams as fast as it
 * opens them (CVE-2023-44487, "rapid reset") is sent GOAWAY after a few dozen. Frames are written by hand, as an
 * attacker would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Http2LimitsEndToEndTest {

    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int GOAWAY = 0x7;
    private static final int CONTINUATION = 0x9;

    final Backend fast = new Backend("fast");
    Gateway gateway;

    @BeforeAll
    void start() throws IOException {
        gateway = GatewayServer.start(
                ProtocolEndToEndTest.config(Map.of(Region.of("cn"), GatewayEndToEndTest.http1(null, fast.endpoint())),
                                            Duration.ofSeconds(10), 1000),
                new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    @AfterAll
    void stop() {
        gateway.close();
        fast.close();
    }

    @Test
    void theGateway_advertisesItsConcurrentStreamLimit() throws Exception {
        try (Socket socket = connect()) {
            Frame settings = Frame.read(socket.getInputStream());

            assertThat(settings.type).isEqualTo(SETTINGS);
            java.util.Map<Integer, Integer> values = new java.util.HashMap<>();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(settings.payload);
            while (b.remaining() >= 6) {
                values.put(b.getShort() & 0xffff, b.getInt());
            }
            assertThat(values).containsEntry(0x3, GatewayServer.MAX_CONCURRENT_STREAMS); // MAX_CONCURRENT_STREAMS
        }
    }

    @Test
    void aClientResettingStreamsAsFastAsItOpensThem_getsGoaway_countedAndWithoutAStackTrace() throws Exception {
        int before = fast.gets();
        java.util.logging.Logger pipeline = java.util.logging.Logger.getLogger("io.netty.channel.DefaultChannelPipeline");
        java.util.List<String> unhandled = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler tail = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                unhandled.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        pipeline.addHandler(tail);
        try (Socket socket = connect()) {
            ByteArrayOutputStream frames = new ByteArrayOutputStream();
            for (int i = 0; i < 1000; i++) {
                frames.write(headers(2 * i + 1, "100"));
                frames.write(frame(RST_STREAM, 0, 2 * i + 1, new byte[] {0, 0, 0, 8})); // CANCEL
            }
            try {
                socket.getOutputStream().write(frames.toByteArray());
            } catch (IOException e) {
                // closed after its GOAWAY: what is tested below
            }

            assertThat(framesUntilClosed(socket.getInputStream())).contains(GOAWAY);
            assertThat(fast.gets() - before).isLessThanOrEqualTo(GatewayServer.MAX_RESETS_PER_WINDOW + 1);
            ProtocolEndToEndTest.await("the connection's error counted", () -> protocolErrors() >= 1);
        } finally {
            pipeline.removeHandler(tail);
        }
        assertThat(unhandled).as("exceptions that reached the pipeline's tail (a stack trace each)").isEmpty();
    }

    @Test
    void aClientSendingContinuationFramesWithoutEnd_getsGoaway_countedAndWithoutAStackTrace() throws Exception {
        // CVE-2024-27316 and kin: a header block that never ends, each frame of it kept by the server until the end
        int before = fast.gets();
        double errorsBefore = protocolErrors();
        java.util.logging.Logger pipeline =
                java.util.logging.Logger.getLogger("io.netty.channel.DefaultChannelPipeline");
        java.util.List<String> unhandled = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler tail = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                unhandled.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        pipeline.addHandler(tail);
        try (Socket socket = connect()) {
            ByteArrayOutputStream frames = new ByteArrayOutputStream();
            frames.write(frame(HEADERS, 0x1, 1, headerBlock(1, "100"))); // END_STREAM, not END_HEADERS
            byte[] more = "x-pad: ".repeat(2_340).getBytes(StandardCharsets.US_ASCII); // ~16 KiB a frame
            for (int i = 0; i < 64; i++) { // 1 MiB of header block, the gateway's heads being 64 KiB at most
                frames.write(frame(CONTINUATION, 0, 1, more));
            }
            try {
                socket.getOutputStream().write(frames.toByteArray());
            } catch (IOException e) {
                // closed after its GOAWAY: what is tested below
            }

            assertThat(framesUntilClosed(socket.getInputStream())).contains(GOAWAY);
            assertThat(fast.gets()).as("requests sent upstream").isEqualTo(before);
            ProtocolEndToEndTest.await("the connection's error counted", () -> protocolErrors() > errorsBefore);
        } finally {
            pipeline.removeHandler(tail);
        }
        assertThat(unhandled).as("exceptions that reached the pipeline's tail (a stack trace each)").isEmpty();
    }

    private double protocolErrors() {
        try {
            String scrape = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + gateway.port()
                                                                            + "/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                    "(?m)^unitas_gateway_client_protocol_errors_total\\{[^}]*} (\\S+)$").matcher(scrape);
            return m.find() ? Double.parseDouble(m.group(1)) : 0;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", gateway.port()));
        socket.setSoTimeout(30_000);
        socket.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(frame(SETTINGS, 0, 0, new byte[0]));
        return socket;
    }

    /** A GET of {@code /a} for user {@code user}, ending its stream. */
    private static byte[] headers(int stream, String user) throws Http2Exception {
        return frame(HEADERS, 0x4 | 0x1, stream, headerBlock(stream, user)); // END_HEADERS, END_STREAM
    }

    /** The encoded header block of a GET of {@code /a} for user {@code user}. */
    private static byte[] headerBlock(int stream, String user) throws Http2Exception {
        Http2Headers h = new DefaultHttp2Headers().method("GET").scheme("http").path("/a").authority("gw")
                                                  .add("x-user-id", user);
        ByteBuf block = Unpooled.buffer();
        new DefaultHttp2HeadersEncoder().encodeHeaders(stream, h, block);
        byte[] payload = new byte[block.readableBytes()];
        block.readBytes(payload);
        return payload;
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (stream >>> 24 & 0x7f);
        f[6] = (byte) (stream >>> 16);
        f[7] = (byte) (stream >>> 8);
        f[8] = (byte) stream;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    /** The types of the frames the gateway sends until it closes the connection. */
    private static java.util.List<Integer> framesUntilClosed(InputStream in) throws IOException {
        java.util.List<Integer> types = new java.util.ArrayList<>();
        for (Frame f = Frame.read(in); f != null; f = Frame.read(in)) {
            types.add(f.type);
        }
        return types;
    }

    /** One frame as read: its type and payload. */
    private record Frame(int type, byte[] payload) {
        /** The next frame, or {@code null} once the connection is closed. */
        static Frame read(InputStream in) throws IOException {
            DataInputStream data = new DataInputStream(in);
            try {
                int length = data.readUnsignedByte() << 16 | data.readUnsignedShort();
                int type = data.readUnsignedByte();
                data.skipNBytes(5); // flags and stream
                return new Frame(type, data.readNBytes(length));
            } catch (EOFException | java.net.SocketException e) {
                return null;
            }
        }
    }
}
