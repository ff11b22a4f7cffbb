package io.unitas.gateway;

import static io.unitas.gateway.ProtocolEndToEndTest.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.unitas.core.Region;
import io.unitas.testkit.Await;

/**
 * The limits on client connections, against a real gateway and backend: slow request heads are cut at the
 * header-read timeout, idle keep-alive connections at the idle timeout (both on a ticker the tests move), connections
 * beyond the cap are closed at once and counted while the admitted ones keep working, and a client that pipelines
 * requests without reading the answers does not make the gateway read (and buffer answers for) all of them.
 */
class ClientLimitsEndToEndTest {

    static final Duration HEADER_READ = Duration.ofSeconds(10);
    static final Duration IDLE = Duration.ofSeconds(60);
    static final String GET = "GET /a HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n";

    final Backend backend = new Backend("main");
    final FakeTicker ticker = new FakeTicker();
    final List<Socket> sockets = new ArrayList<>();
    GatewayServer gateway;

    void start(int maxConnections) {
        GatewayConfig config = ProtocolEndToEndTest.config(
                Map.of(Region.of("cn"), GatewayEndToEndTest.http1("", backend.endpoint())), Duration.ofSeconds(5),
                1000).withLimits(new GatewayConfig.Limits(maxConnections, HEADER_READ, IDLE));
        gateway = GatewayServer.start(config, new FixedFeed(GatewayEndToEndTest.rules(false),
                                                            GatewayEndToEndTest.ALL_UP), ticker);
    }

    @BeforeEach
    void defaults() {
        start(GatewayConfig.Limits.DEFAULTS.maxConnections());
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        gateway.close();
        backend.close();
    }

    @Test
    void aRequestHeadThatTricklesInIsCutAtTheHeaderReadTimeout() throws Exception {
        Socket slow = connect();
        send(slow, "GET /a HTTP/1.1\r\nhost: gw\r\n");
        ticker.advance(HEADER_READ.minusSeconds(5));
        gateway.checkTimeouts();
        send(slow, "x-user-id: 100\r\nx-more: " + "a".repeat(1000)); // still coming: the head's clock keeps running
        ticker.advance(Duration.ofSeconds(5).minusMillis(1));
        gateway.checkTimeouts();
        assertThat(gateway.clientLimits().headerReadTimeouts()).isZero();

        ticker.advance(Duration.ofMillis(1));
        gateway.checkTimeouts();

        assertThat(gateway.clientLimits().headerReadTimeouts()).isEqualTo(1);
        assertThat(readToEnd(slow)).isEmpty(); // closed, without an answer
        await("the cut connection is no longer counted", () -> gateway.clientLimits().open() == 0);
    }

    @Test
    void aKeptAliveConnectionWaitsForItsNextRequestUpToTheIdleTimeoutNotTheHeaderReadOne() throws Exception {
        Socket client = connect();
        send(client, GET);
        assertThat(readAnswer(client)).startsWith("HTTP/1.1 200 OK");
        gateway.checkTimeouts(); // a barrier: the loop is done with the exchange whose answer was read

        ticker.advance(HEADER_READ.plusSeconds(1)); // between requests only the idle timeout runs
        gateway.checkTimeouts();
        send(client, GET);
        assertThat(readAnswer(client)).startsWith("HTTP/1.1 200 OK");
        gateway.checkTimeouts();

        ticker.advance(IDLE.minusMillis(1));
        gateway.checkTimeouts();
        assertThat(gateway.clientLimits().idleTimeouts()).isZero();
        ticker.advance(Duration.ofMillis(1));
        gateway.checkTimeouts();

        assertThat(gateway.clientLimits().idleTimeouts()).isEqualTo(1);
        assertThat(gateway.clientLimits().headerReadTimeouts()).isZero();
        assertThat(readToEnd(client)).isEmpty();
    }

    @Test
    void anExchangeInProgressIsNotTimedOutByItsConnection() throws Exception {
        gateway.close();
        gateway = GatewayServer.start(GatewayEndToEndTest.config(
                "cn", 0, null, 1, Map.of(Region.of("cn"), GatewayEndToEndTest.http1("", backend.endpoint())),
                GatewayEndToEndTest.resilience(Duration.ofSeconds(5), Duration.ofMinutes(5), 1000,
                                               Duration.ofSeconds(60)))
                .withLimits(new GatewayConfig.Limits(100, HEADER_READ, IDLE)),
                new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP), ticker);
        Socket client = connect();
        send(client, "GET /tap HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n");
        await("the answer starts", backend::tapped);
        backend.tapWrite("first");
        String head = readUntil(client.getInputStream(), "first\n");

        ticker.advance(IDLE.plusSeconds(1)); // past both connection timeouts, under the exchange's 5 min idle one
        gateway.checkTimeouts();
        backend.tapWrite("still here");
        backend.tapClose();

        assertThat(head).startsWith("HTTP/1.1 200 OK");
        assertThat(readUntil(client.getInputStream(), "0\r\n\r\n")).contains("still here");
        assertThat(gateway.clientLimits().idleTimeouts() + gateway.clientLimits().headerReadTimeouts()).isZero();
    }

    /**
     * The attack at a third of its size: 300 connections each holding 60 KB of an unfinished request head,
     * against a cap of 100. The gateway holds 100 (the cap, never more), closes the other 200 at once and counts
     * them, keeps serving a connection it had before, and once the header-read timeout passes has none of the 100 left.
     */
    @Test
    void threeHundredSlowConnectionsAgainstACapOfAHundred() throws Exception {
        gateway.close();
        start(101);
        Socket good = connect(); // a kept-alive client from before the flood
        send(good, GET);
        assertThat(readAnswer(good)).startsWith("HTTP/1.1 200 OK");

        String unfinished = "GET /a HTTP/1.1\r\nhost: gw\r\nx-pad: " + "p".repeat(60 * 1024);
        for (int i = 0; i < 300; i++) {
            Socket s = connect();
            try {
                send(s, unfinished);
            } catch (IOException refused) {
                // closed by the gateway before or while the head was written: what the cap is for
            }
        }
        await("200 refused", () -> gateway.clientLimits().refused() == 200);
        assertThat(gateway.clientLimits().open()).isEqualTo(101);
        assertThat(scrape(good)).contains("unitas_gateway_client_connections{gateway_region=\"cn\"} 101.0")
                                .contains("unitas_gateway_client_connections_refused_total{gateway_region=\"cn\"} 200.0");

        ticker.advance(HEADER_READ);
        gateway.checkTimeouts();

        assertThat(gateway.clientLimits().headerReadTimeouts()).isEqualTo(100);
        await("the slow ones are closed", () -> gateway.clientLimits().open() == 1);
        send(good, GET); // the old client was never in danger: its connection was idle, not reading a head
        assertThat(readAnswer(good)).startsWith("HTTP/1.1 200 OK");
        Socket fresh = connect(); // and the freed places take new clients
        send(fresh, GET);
        assertThat(readAnswer(fresh)).startsWith("HTTP/1.1 200 OK");
        assertThat(gateway.clientLimits().refused()).isEqualTo(200);
    }

    /**
     * 20,000 pipelined requests for 1 KB answers, none of them read: 20 MB of answers, each small enough to arrive in
     * one read, that the gateway would buffer if it took up every request (the kernel's buffers hold about 4 MB of
     * them). It takes up a request only while the client reads what came before, so the backend sees a fraction of
     * them until the client reads; then every answer arrives, and the last one closes the connection as asked.
     */
    @Test
    void aClientThatPipelinesAndDoesNotReadIsNotBufferedForWithoutBound() throws Exception {
        int requests = 20_000;
        Socket client = new Socket();
        client.setReceiveBufferSize(64 * 1024);
        client.connect(new InetSocketAddress("127.0.0.1", gateway.port()));
        sockets.add(client);
        String get = "GET /bytes?n=1024 HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n";
        byte[] all = ((get + "\r\n").repeat(requests - 1) + get + "connection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        Thread sender = new Thread(() -> { // the gateway may stop reading before all of it is sent
            try {
                client.getOutputStream().write(all);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        sender.start();

        int taken = settled(backend::gets);
        assertThat(taken).as("requests taken up while the client read nothing").isLessThan(requests / 2);

        client.setSoTimeout(30_000);
        InputStream in = client.getInputStream();
        long bytes = 0;
        byte[] buf = new byte[1 << 16];
        int n;
        while ((n = in.read(buf)) > 0) { // to the end: the last request asked to close
            bytes += n;
        }
        sender.join();
        assertThat(bytes).isGreaterThan((long) requests * 1024); // every body and its head
        assertThat(backend.gets()).isEqualTo(requests);
    }

    /** The count once it has moved and then stopped moving for a second (real I/O), within 60 s. */
    private static int settled(IntSupplier count) {
        return Await.settled(count, Duration.ofSeconds(1), Duration.ofSeconds(60));
    }

    /** A connection the gateway has taken (its header-read timeout running from the ticker's reading then). */
    private Socket connect() throws IOException, InterruptedException {
        int open = gateway.clientLimits().open();
        long refused = gateway.clientLimits().refused();
        Socket s = new Socket("127.0.0.1", gateway.port());
        s.setSoTimeout(10_000);
        sockets.add(s);
        await("the gateway took or refused the connection",
              () -> gateway.clientLimits().open() > open || gateway.clientLimits().refused() > refused);
        gateway.checkTimeouts(); // a barrier: the loop has finished setting the connection up, its guard armed
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** One answer with a content-length body: its head and as many body bytes as it announces. */
    private static String readAnswer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int headEnd = -1;
        int length = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                return got.toString(StandardCharsets.US_ASCII);
            }
            got.write(b);
            String text = got.toString(StandardCharsets.US_ASCII);
            if (headEnd < 0 && text.endsWith("\r\n\r\n")) {
                headEnd = text.length();
                String lower = text.toLowerCase();
                int at = lower.indexOf("content-length: ");
                length = at < 0 ? -1 : Integer.parseInt(lower.substring(at + 16, lower.indexOf('\r', at)).trim());
                if (length < 0) { // chunked: read up to the last chunk
                    return text + readUntil(in, "0\r\n\r\n");
                }
            }
            if (headEnd >= 0 && got.size() - headEnd >= length) {
                return got.toString(StandardCharsets.US_ASCII);
            }
        }
    }

    private static String readUntil(InputStream in, String end) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            got.write(b);
            if (got.toString(StandardCharsets.US_ASCII).endsWith(end)) {
                break;
            }
        }
        return got.toString(StandardCharsets.US_ASCII);
    }

    /** What arrives until the gateway closes the connection (a reset counts as closed). */
    private static String readToEnd(Socket s) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try {
            s.getInputStream().transferTo(got);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("still open: " + got.toString(StandardCharsets.US_ASCII), e);
        } catch (IOException reset) {
            // closed with a reset: closed all the same
        }
        return got.toString(StandardCharsets.US_ASCII);
    }

    private static String scrape(Socket s) throws IOException {
        send(s, "GET /metrics HTTP/1.1\r\nhost: gw\r\n\r\n");
        return readAnswer(s);
    }
}
