package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One anonymous client that pipelines requests and reads no answer must not fill the control plane's heap: past a
 * bound of unanswered requests or unsent answers the connection is no longer read, so the requests wait in socket
 * buffers instead. The control plane runs in a child JVM with a 96 MB heap that ends at its first out-of-memory, as
 * the launcher runs it: before the bound, the same attack ended it within seconds (the heap grew about 89 bytes per
 * byte sent).
 */
class ControlPipeliningTest {

    /** What the attack sends at most: before the bound, 6.1 MB of such requests grew a heap by 531 MB. */
    private static final long ATTACK_BYTES = 20L << 20;

    @TempDir
    Path dir;

    @Test
    void pipelinedRequestsFromAClientThatReadsNothing_neitherFillTheHeapNorStopOthers() throws Exception {
        try (ControlProcess control = ControlProcess.start(dir.resolve("data"), Fixtures.tokensFile(dir), null,
                                                           dir.resolve("control.log"), "96m");
             Socket attacker = new Socket()) {
            attacker.setReceiveBufferSize(4096);
            attacker.connect(new InetSocketAddress("127.0.0.1", control.uri().getPort()));
            AtomicLong sent = new AtomicLong();
            Thread flood = new Thread(() -> send(attacker, sent), "attacker");
            flood.setDaemon(true);
            flood.start();
            flood.join(Duration.ofSeconds(30).toMillis()); // all sent, or blocked on a connection no longer read

            assertThat(control.alive()).as("the control plane after %d bytes of pipelined requests", sent.get())
                                       .isTrue();
            HttpResponse<String> other = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(control.uri() + "/api/v1/state"))
                               .header("authorization", "Bearer " + Fixtures.VIEWER.secret())
                               .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(other.statusCode()).isEqualTo(200);
            assertThat(control.alive()).as("the control plane after the attack and another client's read").isTrue();
        }
    }

    /** Pipelined anonymous state reads, as fast as the connection takes them, up to {@link #ATTACK_BYTES}. */
    private static void send(Socket socket, AtomicLong sent) {
        byte[] one = "GET /api/v1/state HTTP/1.1\r\nhost: control\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[] batch = new byte[one.length * 256];
        for (int i = 0; i < 256; i++) {
            System.arraycopy(one, 0, batch, i * one.length, one.length);
        }
        try {
            OutputStream out = socket.getOutputStream();
            while (sent.get() < ATTACK_BYTES) {
                out.write(batch);
                sent.addAndGet(batch.length);
            }
        } catch (IOException e) {
            // closed by the server or by the test: either way the attack is over
        }
    }
}
