package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The standing check of the health agent's HTTP port against a client that pipelines requests and reads no answer:
 * about 20 MB of {@code /metrics} scrapes on one connection. The agent stops reading that connection (the requests
 * wait in the sockets, not in the heap) and keeps answering others.
 */
class HttpPipeliningTest {

    /** What the attacker offers to send: the attack on the control plane's port. */
    private static final long ATTACK_BYTES = 20L << 20;

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
    void twentyMegabytesOfPipelinedScrapesNeverRead_areNotReadIntoTheHeap_andOthersAreAnswered() throws Exception {
        byte[] requests = "GET /metrics HTTP/1.1\r\nhost: health\r\n\r\n".repeat(1_000)
                                                                         .getBytes(StandardCharsets.US_ASCII);
        long heapBefore = usedHeapAfterGc();
        try (Socket attacker = new Socket()) {
            attacker.setReceiveBufferSize(4096);
            attacker.connect(new InetSocketAddress("127.0.0.1", server.httpPort()));
            AtomicLong sent = new AtomicLong();
            Thread sender = new Thread(() -> {
                try {
                    OutputStream out = attacker.getOutputStream();
                    while (sent.get() < ATTACK_BYTES) {
                        out.write(requests);
                        sent.addAndGet(requests.length);
                    }
                } catch (IOException e) {
                    // closed by the agent or by the test: either way the attack is over
                }
            }, "pipelining-attacker");
            sender.setDaemon(true);
            sender.start();

            // the sender blocks once the agent stops reading and the sockets' buffers are full
            long last = -1;
            while (sender.isAlive() && sent.get() != last) {
                last = sent.get();
                sender.join(2_000);
            }
            long grown = usedHeapAfterGc() - heapBefore;
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (String path : new String[] {"/livez", "/metrics", "/readyz"}) {
                HttpResponse<String> other = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                                   .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(other.statusCode()).as("another client's %s, while the attack holds", path)
                                              .isIn(200, 503);
            }
            System.out.printf("health HTTP pipelining attack: %,d of %,d bytes sent before the agent stopped "
                              + "reading; heap %+,d bytes%n", sent.get(), ATTACK_BYTES, grown);
            assertThat(sent.get()).as("bytes the attacker got to send").isLessThan(ATTACK_BYTES);
            assertThat(grown).as("heap grown while the attacker is held").isLessThan(32L << 20);
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
