package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.TricklingClient;

/**
 * What an anonymous or misbehaving client can make the control plane hold: nothing before the token is checked,
 * a body no larger than the route accepts, a bounded number of connections, and no connection that never finishes
 * its headers.
 */
class ControlLimitsTest {

    /** How long the tests wait for real I/O; never a bound on the product. */
    private static final int IO_MILLIS = 30_000;

    @TempDir
    Path dir;

    private ControlServer server;
    private final List<Socket> sockets = new ArrayList<>();

    private ControlServer start(java.util.function.UnaryOperator<ControlServer.Builder> options) {
        server = options.apply(ControlServer.builder().port(0).dataDir(dir.resolve("data"))
                                            .tokens(Fixtures.tokensFile(dir))).start();
        return server;
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(IO_MILLIS);
        sockets.add(s);
        return s;
    }

    private static String statusLine(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\r'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString();
    }

    @Test
    void anAnonymousTenMegabytePut_isRefused401_beforeItsBodyIsSent() throws IOException {
        start(b -> b);
        Socket s = connect();
        OutputStream out = s.getOutputStream();
        out.write(("PUT /api/v1/topology HTTP/1.1\r\nHost: control\r\nContent-Type: application/json\r\n"
                   + "Content-Length: 10000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(new byte[16 * 1024]); // a first slice of the body; the rest is never sent
        out.flush();

        // Answered while 9.98 MB of the body are still to come: the body was not what the server waited for.
        assertThat(statusLine(s)).isEqualTo("HTTP/1.1 401 Unauthorized");
    }

    @Test
    void anAnonymousPutWithItsWholeBody_isStill401() {
        start(b -> b);
        ControlResponse res = RawClient.of(server.uri(), null).send("PUT", "/api/v1/rules", "{}",
                                                                         Map.of("If-Match", "1"));

        assertThat(res.status()).isEqualTo(401);
    }

    @Test
    void anAuthenticatedBodyOverTheRoutesLimit_is413WithAProblem() {
        start(b -> b);
        RawClient operator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret());
        String twoMegabytes = "{\"units\":[],\"pad\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}";
        String hundredKilobytes = Fixtures.report("cn", 1, java.time.Instant.now(), true, 0)
                                          .replace("\"reasons\":[]", "\"reasons\":[\"" + "x".repeat(100 * 1024)
                                                                     + "\"]");

        ControlResponse rules = operator.send("PUT", "/api/v1/rules", twoMegabytes, Map.of("If-Match", "0"));
        ControlResponse health = operator.send("PUT", "/api/v1/health/cn", hundredKilobytes, Map.of());

        assertThat(rules.status()).as(rules.body()).isEqualTo(413);
        assertThat(rules.json().path("type").asText()).isEqualTo("urn:unitas:problem:too-large");
        assertThat(rules.json().path("detail").asText()).isEqualTo("body: larger than 1048576 bytes (expected: "
                                                                   + "at most 1048576 for PUT /api/v1/rules)");
        assertThat(health.status()).as(health.body()).isEqualTo(413);
        assertThat(health.json().path("detail").asText()).contains("at most 65536");
    }

    @Test
    void connectionsOverTheCap_areClosed() throws IOException {
        start(b -> b.maxConnections(3));
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(connect());
        }
        Fixtures.await("three connections accepted", Duration.ofSeconds(30),
                       () -> ((DefaultControlServer) server).connections() == 3);

        Socket over = connect();

        assertThat(closedByServer(over)).isTrue();
        held.get(0).close();
        Fixtures.await("a place freed", Duration.ofSeconds(30),
                       () -> ((DefaultControlServer) server).connections() == 2);
        Socket again = connect();
        again.getOutputStream().write("GET /api/v1/openapi.json HTTP/1.1\r\nHost: control\r\n\r\n"
                                              .getBytes(StandardCharsets.US_ASCII));
        assertThat(statusLine(again)).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void aConnectionThatNeverFinishesItsHeaders_isClosed_evenWhenItKeepsTrickling() {
        start(b -> b.headerTimeout(Duration.ofSeconds(1)));

        // A header line every 200 ms keeps the connection busy but never completes the request.
        try (TricklingClient slow = TricklingClient.open(new InetSocketAddress("127.0.0.1", server.port()),
                                                         "/api/v1/state")) {
            assertThat(slow.trickleUntilClosed(Duration.ofMillis(200), Duration.ofMillis(IO_MILLIS)))
                    .as("closed by the server").isTrue();
        }
    }

    /** Whether the server closes {@code s} without a response. */
    private static boolean closedByServer(Socket s) {
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }
}
