package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.testkit.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fault proxy between regions on real sockets: open forwards both ways, cut hangs (new and established
 * connections), delay holds each chunk until its clock has moved on by the latency, in order.
 */
class LinkProxyTest {

    /** How long a read waits to show that nothing arrived; a longer one only makes the test slower. */
    private static final int NOTHING_WITHIN_MS = 300;
    private static final Duration ARRIVES_WITHIN = Duration.ofSeconds(20);

    private final AtomicLong nanos = new AtomicLong();
    private ServerSocket target;
    private LinkProxy proxy;

    @BeforeEach
    void start() throws IOException {
        target = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        proxy = LinkProxy.start("cn-eu", 0, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                                                                  target.getLocalPort()), nanos::get);
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        target.close();
    }

    @Test
    void open_forwardsBothWays() throws IOException {
        try (Socket client = connect(); Socket server = target.accept()) {
            send(client, "ping");
            assertThat(receive(server, 4)).isEqualTo("ping");
            send(server, "pong");
            assertThat(receive(client, 4)).isEqualTo("pong");
        }
    }

    @Test
    void cut_establishedConnection_carriesNothingUntilHealed_thenEverythingInOrder() throws IOException {
        try (Socket client = connect(); Socket server = target.accept()) {
            send(client, "a");
            assertThat(receive(server, 1)).isEqualTo("a");

            proxy.cut();
            send(client, "bc");
            send(server, "x");
            assertNothingArrives(server);
            assertNothingArrives(client);

            proxy.open();
            assertThat(receive(server, 2)).isEqualTo("bc");
            assertThat(receive(client, 1)).isEqualTo("x");
        }
    }

    @Test
    void cut_newConnection_isAcceptedAndHangs_theTargetSeesItOnlyAfterHeal() throws IOException {
        proxy.cut();
        try (Socket client = connect()) {
            send(client, "hello");
            target.setSoTimeout(NOTHING_WITHIN_MS);
            assertThatThrownBy(target::accept).as("the target was not connected to while cut")
                                              .isInstanceOf(SocketTimeoutException.class);

            proxy.open();
            target.setSoTimeout(0);
            try (Socket server = target.accept()) {
                assertThat(receive(server, 5)).isEqualTo("hello");
            }
        }
    }

    @Test
    void delay_holdsEachChunkUntilItsClockPassedTheLatency_inOrder_bothWays() throws IOException {
        try (Socket client = connect(); Socket server = target.accept()) {
            proxy.delay(Duration.ofMillis(300));
            send(client, "one");
            send(client, "two");
            assertNothingArrives(server);

            nanos.addAndGet(Duration.ofMillis(300).toNanos());
            assertThat(receive(server, 6)).isEqualTo("onetwo");

            send(server, "back");
            assertNothingArrives(client);
            nanos.addAndGet(Duration.ofMillis(300).toNanos());
            assertThat(receive(client, 4)).isEqualTo("back");
        }
    }

    @Test
    void switchingFromDelayToOpen_releasesWhatIsHeld_onTheEstablishedConnection() throws IOException {
        try (Socket client = connect(); Socket server = target.accept()) {
            proxy.delay(Duration.ofHours(1));
            send(client, "held");
            assertNothingArrives(server);

            proxy.open();
            assertThat(receive(server, 4)).isEqualTo("held");
        }
    }

    @Test
    void aTargetThatRefuses_makesTheLinkRefuse_untilItListensAgain() throws IOException {
        int port = target.getLocalPort();
        target.close();                                        // the far region's process is killed
        try (Socket first = connect()) {                       // accepted before the link knew: closed at once
            first.setSoTimeout(5_000);
            assertThatThrownBy(() -> first.getInputStream().read()).as("reset")
                    .isInstanceOf(IOException.class);
        } catch (IOException e) {
            // reset before the read: as good
        }

        Await.until("the link refuses as its target does", ARRIVES_WITHIN, () -> {
            try (Socket s = connect()) {
                return false;
            } catch (java.net.ConnectException e) {
                return true;
            } catch (IOException e) {
                return false;
            }
        });

        target = new ServerSocket();                           // the far region is back on its port
        target.setReuseAddress(true);
        target.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        Await.until("the link listens again", ARRIVES_WITHIN, () -> {
            try (Socket s = connect()) {
                return true;
            } catch (IOException e) {
                return false;
            }
        });
        try (Socket client = connect()) {
            send(client, "ping");
            assertThat(firstCarrying(target, 4)).isEqualTo("ping");
        }
    }

    /** The first {@code n} bytes of the first connection that carries any (the link's probes of it carry none). */
    private static String firstCarrying(ServerSocket target, int n) throws IOException {
        while (true) {
            try (Socket s = target.accept()) {
                s.setSoTimeout((int) ARRIVES_WITHIN.toMillis());
                byte[] got = s.getInputStream().readNBytes(n);
                if (got.length > 0) {
                    return new String(got, StandardCharsets.UTF_8);
                }
            }
        }
    }

    @Test
    void aNegativeLatency_isRefused() {
        assertThatThrownBy(() -> proxy.delay(Duration.ofMillis(-1)))
                .hasMessage("latency: PT-0.001S (expected: >= 0)");
    }

    private Socket connect() throws IOException {
        return new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
    }

    /** Reads {@code n} bytes, waiting for them as long as {@link #ARRIVES_WITHIN}. */
    private static String receive(Socket s, int n) throws IOException {
        s.setSoTimeout(0);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        Await.until(n + " bytes at " + s, ARRIVES_WITHIN, () -> {
            try {
                while (in.available() > 0 && got.size() < n) {
                    got.write(in.read());
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return got.size() >= n;
        });
        return got.toString(StandardCharsets.UTF_8);
    }

    private static void assertNothingArrives(Socket s) throws IOException {
        s.setSoTimeout(NOTHING_WITHIN_MS);
        assertThatThrownBy(() -> s.getInputStream().read()).as("nothing arrived at " + s)
                                                           .isInstanceOf(SocketTimeoutException.class);
    }
}
