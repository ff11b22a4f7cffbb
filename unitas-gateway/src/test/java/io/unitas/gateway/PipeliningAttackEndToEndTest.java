package io.unitas.gateway;

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
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.unitas.core.Region;

/**
 * The standing check of the traffic port against a client that pipelines requests and reads no answer: ~20 MB on
 * one connection. The gateway stops reading it (its answers wait in the sockets, not in the heap) and keeps
 * answering others.
 */
class PipeliningAttackEndToEndTest {

    private static final long ATTACK_BYTES = 20L << 20;

    final Backend backend = new Backend("cn-main");
    GatewayServer gateway;

    @BeforeEach
    void start() {
        gateway = (GatewayServer) GatewayServer.start(ProtocolEndToEndTest.config(
                Map.of(Region.of("cn"), GatewayEndToEndTest.http1("", backend.endpoint())), Duration.ofSeconds(5),
                1000), new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    @AfterEach
    void stop() {
        gateway.close();
        backend.close();
    }

    @Test
    void twentyMegabytesOfPipelinedRequestsNeverRead_areNotReadIntoTheHeap_andOthersAreServed() throws Exception {
        byte[] requests = "GET /a HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n".repeat(1_000)
                                                                                .getBytes(StandardCharsets.US_ASCII);
        Socket attacker = new Socket();
        attacker.setReceiveBufferSize(4096);
        attacker.connect(new InetSocketAddress("127.0.0.1", gateway.port()));
        AtomicLong sent = new AtomicLong();
        Thread sender = new Thread(() -> {
            try {
                OutputStream out = attacker.getOutputStream();
                while (sent.get() < ATTACK_BYTES) {
                    out.write(requests);
                    sent.addAndGet(requests.length);
                }
            } catch (IOException e) {
                // closed by the test
            }
        }, "pipelining-attacker");
        sender.setDaemon(true);
        long heapBefore = usedHeap();
        sender.start();

        // the sender blocks once the gateway stops reading and the sockets' buffers are full
        long last = -1;
        while (sent.get() != last && sent.get() < ATTACK_BYTES) {
            last = sent.get();
            Thread.sleep(2_000);
        }
        long heapGrowth = usedHeap() - heapBefore;
        HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + gateway.port() + "/a")).header("x-user-id", "200").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(other.statusCode()).as("another client, while the attack holds").isEqualTo(200);
        }
        System.out.printf("pipelining attack: %,d of %,d bytes sent before the gateway stopped reading; heap %+,d bytes%n",
                          sent.get(), ATTACK_BYTES, heapGrowth);
        assertThat(sent.get()).as("bytes the attacker got to send").isLessThan(ATTACK_BYTES);
        assertThat(heapGrowth).as("heap growth").isLessThan(32L << 20);
        attacker.close();
    }

    private static long usedHeap() {
        System.gc();
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }
}
