package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.unitas.core.Region;

/**
 * How upstream answers are framed on their way through: whole or byte by byte, fixed-length, chunked with and
 * without trailers, delimited by the connection's close, answers to HEAD, kept-alive connections reused, and
 * answers that are not HTTP or break off mid-body. The upstream is a raw socket server that writes exactly the bytes
 * each path names, so that it can misbehave as real servers sometimes do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UpstreamFramingEndToEndTest {

    /** What the raw upstream answers, by request path; {@code null} bytes close the connection at once. */
    static final Map<String, String> ANSWERS = Map.of(
            "/fixed", "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nx-kept: yes\r\n\r\nhello",
            "/chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
            "/trailers", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: x-sum\r\n\r\n"
                         + "3\r\nabc\r\n0\r\nx-sum: 42\r\n\r\n",
            "/empty", "HTTP/1.1 204 No Content\r\n\r\n",
            "/healthz", "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            "/head", "HTTP/1.1 200 OK\r\ncontent-length: 1234\r\n\r\n",
            "/old", "HTTP/1.0 200 OK\r\ncontent-length: 5\r\n\r\nhello",
            "/garbage", "this is not http\r\n\r\n",
            "/badchunk", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\nxyz\r\n0\r\n\r\n",
            "/cut", "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly a part");

    final RawUpstream upstream = new RawUpstream();
    Gateway gateway;

    @BeforeAll
    void start() throws IOException {
        gateway = GatewayServer.start(ProtocolEndToEndTest.config(Map.of(Region.of("cn"), GatewayEndToEndTest.http1(
                                              null, "127.0.0.1:" + upstream.port())), Duration.ofSeconds(10), 1000),
                                      new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    @AfterAll
    void stop() throws IOException {
        gateway.close();
        upstream.close();
    }

    @Test
    void aFixedLengthAnswerIsRelayedWholeWithItsHeadersAndTheGatewaysStamps() throws IOException {
        String res = exchange("GET /fixed HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "hello");
        assertThat(res).startsWith("HTTP/1.1 200 OK").containsIgnoringCase("content-length: 5")
                       .contains("x-kept: yes").containsIgnoringCase("x-unitas-served-by: cn").endsWith("\r\n\r\nhello");
    }

    @Test
    void anAnswerArrivingByteByByteIsRelayedWhole() throws IOException {
        upstream.byteByByte = true;
        try {
            assertThat(exchange("GET /fixed HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "hello"))
                    .startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\nhello");
            String chunked = exchange("GET /chunked HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "0\r\n\r\n");
            assertThat(chunked).startsWith("HTTP/1.1 200 OK").endsWith("0\r\n\r\n");
            assertThat(dechunk(chunked.substring(chunked.indexOf("\r\n\r\n") + 4))).isEqualTo("abcde");
        } finally {
            upstream.byteByByte = false;
        }
    }

    @Test
    void aChunkedAnswerIsRelayedChunkedWithItsTrailers() throws IOException {
        String chunked = exchange("GET /chunked HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "0\r\n\r\n");
        assertThat(chunked).containsIgnoringCase("transfer-encoding: chunked").endsWith("0\r\n\r\n");
        assertThat(dechunk(chunked.substring(chunked.indexOf("\r\n\r\n") + 4))).isEqualTo("abcde");
        assertThat(exchange("GET /trailers HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "x-sum: 42\r\n\r\n"))
                .contains("abc").contains("0\r\nx-sum: 42\r\n\r\n");
    }

    @Test
    void answersWithoutABodyHaveNone() throws IOException {
        String twice = "HEAD /head HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n"
                       + "GET /empty HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\nconnection: close\r\n\r\n";
        String res = exchange(twice, null);
        assertThat(res).startsWith("HTTP/1.1 200 OK").containsIgnoringCase("content-length: 1234")
                       .contains("\r\n\r\nHTTP/1.1 204 No Content").endsWith("\r\n\r\n");
    }

    @Test
    void answersRelayedAsBytesKeepTheClientCodecsPairingOfAnswersWithHeadRequests() throws IOException {
        // The first answer passes the client's codec as bytes, the other two through it (an answer to HEAD, and an
        // HTTP/1.0 answer, which is parsed): the codec must pair the second with HEAD and the third with GET, or it
        // drops the third's body as an answer to HEAD.
        String res = exchange("GET /fixed HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n"
                              + "HEAD /head HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n"
                              + "GET /old HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\nconnection: close\r\n\r\n",
                              null);
        assertThat(res.split(" 200 OK\r\n", -1)).hasSize(4);
        assertThat(res).containsIgnoringCase("content-length: 1234").endsWith("\r\n\r\nhello");
    }

    @Test
    void aKeptAliveUpstreamConnectionCarriesTheNextRequest() throws IOException {
        exchange("GET /fixed HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "hello");
        int connections = upstream.accepted.get();
        for (int i = 0; i < 5; i++) {
            exchange("GET /fixed HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "hello");
            exchange("GET /chunked HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "0\r\n\r\n");
        }
        assertThat(upstream.accepted.get()).isEqualTo(connections);
    }

    @Test
    void aRequestWhoseBodyComesInALaterReadGoesUpOnceHeadAndBody() throws IOException, InterruptedException {
        upstream.received.clear();
        upstream.heads.clear();
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(5_000);
            OutputStream out = s.getOutputStream();
            out.write("POST /fixed HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\ncontent-length: 4\r\n\r\n"
                              .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            awaitHead("POST /fixed "); // the gateway has read and sent up the head: the body comes in a later read
            out.write("body".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buf = new byte[8192];
            String got = "";
            while (!got.endsWith("hello")) {
                int n = s.getInputStream().read(buf);
                assertThat(n).isPositive();
                got += new String(buf, 0, n, StandardCharsets.US_ASCII);
            }
            assertThat(got).startsWith("HTTP/1.1 200 OK");
        }
        assertThat(upstream.received).filteredOn(r -> !r.startsWith("GET /healthz ")).singleElement()
                                     .asString().startsWith("POST /fixed HTTP/1.1\r\n").endsWith("\r\n\r\nbody");
    }

    /** Waits until the upstream has received a request head starting with {@code start} (health checks aside). */
    private void awaitHead(String start) throws InterruptedException {
        while (true) {
            String head = upstream.heads.poll(5, TimeUnit.SECONDS);
            assertThat(head).as("a head starting with " + start + " at the upstream").isNotNull();
            if (head.startsWith(start)) {
                return;
            }
        }
    }

    @Test
    void anAnswerThatIsNotHttpIsA502Problem() throws IOException {
        String res = exchange("GET /garbage HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", "}");
        assertThat(res).startsWith("HTTP/1.1 502 Bad Gateway").contains("upstream-failed");
    }

    @Test
    void anAnswerBrokenOffMidBodyCutsTheClientsConnection() throws IOException {
        // Read to the connection's end: the answer's head and its first chunk may or may not have gone out.
        assertThat(exchange("GET /badchunk HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", null))
                .doesNotContain("xyz").doesNotEndWith("0\r\n\r\n");
        assertThat(exchange("GET /cut HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", null))
                .startsWith("HTTP/1.1 200 OK").endsWith("only a part");
    }

    /**
     * Writes {@code request} raw and reads until {@code until} shows up, or the connection closes (a read timing out
     * fails the test).
     */
    private String exchange(String request, String until) throws IOException {
        try (Socket s = new Socket("127.0.0.1", gateway.port())) {
            s.setSoTimeout(5_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                got.write(buf, 0, n);
                if (until != null && got.toString(StandardCharsets.US_ASCII).endsWith(until)) {
                    break;
                }
            }
            return got.toString(StandardCharsets.US_ASCII);
        }
    }

    /** The body of a chunked message (without trailers), from its first chunk's size line. */
    static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (true) {
            int eol = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, eol), 16);
            if (size == 0) {
                return body.toString();
            }
            body.append(chunked, eol + 2, eol + 2 + size);
            at = eol + 2 + size + 2;
        }
    }

    /** A raw HTTP/1.1 upstream: reads each request's head and writes the bytes {@link #ANSWERS} has for its path. */
    static final class RawUpstream implements AutoCloseable {
        private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)\r\ncontent-length: *(\\d+)");
        final ServerSocket server;
        final AtomicInteger accepted = new AtomicInteger();
        /** Each request as it came, head and body. */
        final Queue<String> received = new ConcurrentLinkedQueue<>();
        /** Each request's head as soon as it has come, before its body is read. */
        final BlockingQueue<String> heads = new LinkedBlockingQueue<>();
        final Map<Socket, Boolean> open = new ConcurrentHashMap<>();
        volatile boolean byteByByte;

        RawUpstream() {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            daemon("raw-upstream", this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        private static void daemon(String name, Runnable run) {
            Thread t = new Thread(run, name);
            t.setDaemon(true);
            t.start();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    accepted.incrementAndGet();
                    open.put(s, true);
                    daemon("raw-upstream-connection", () -> serve(s));
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        private void serve(Socket s) {
            try (s) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                s.setTcpNoDelay(true);
                while (true) {
                    String head = readHead(in);
                    if (head == null) {
                        return;
                    }
                    heads.add(head);
                    Matcher length = CONTENT_LENGTH.matcher(head);
                    String body = length.find()
                                  ? new String(in.readNBytes(Integer.parseInt(length.group(1))),
                                               StandardCharsets.US_ASCII) : "";
                    received.add(head + body);
                    String path = head.split(" ", 3)[1];
                    String answer = ANSWERS.get(path);
                    byte[] bytes = answer.getBytes(StandardCharsets.US_ASCII);
                    if (byteByByte) {
                        for (byte b : bytes) {
                            out.write(b);
                            out.flush();
                            Thread.sleep(1); // each byte its own segment, most of them their own read
                        }
                    } else {
                        out.write(bytes);
                        out.flush();
                    }
                    if (path.equals("/cut") || path.equals("/badchunk") || path.equals("/garbage")) {
                        return;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the gateway closed the connection
            } finally {
                open.remove(s);
            }
        }

        /** The request's head (requests here have no body), or {@code null} at the end of the stream. */
        private static String readHead(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0) {
                head.append((char) b);
                if (head.length() >= 4 && head.lastIndexOf("\r\n\r\n") == head.length() - 4) {
                    return head.toString();
                }
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : open.keySet()) {
                s.close();
            }
        }
    }
}
