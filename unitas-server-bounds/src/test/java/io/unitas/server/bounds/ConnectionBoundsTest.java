package io.unitas.server.bounds;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.Server;
import io.unitas.testkit.Await;

/**
 * The bound on a real Armeria server, HTTP/1.1 on a raw socket: each request is held by the service until the test
 * answers it, so what reached the service is what the bound let be read. Requests are written one at a time, so
 * that each read of the server takes one (a read's requests are decoded together; the bound stops the next read).
 */
class ConnectionBoundsTest {

    private static final byte[] REQUEST =
            "GET /held HTTP/1.1\r\nHost: bounds\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final AtomicInteger arrived = new AtomicInteger();
    /** Requests whose headers reached {@code /echo}, which is called before their bodies are read. */
    private final AtomicInteger echoHeaders = new AtomicInteger();
    private final Queue<CompletableFuture<HttpResponse>> held = new ConcurrentLinkedQueue<>();
    private Server server;

    @BeforeEach
    void start() {
        ConnectionBounds bounds = new ConnectionBounds();
        server = Server.builder().http(0)
                       .childChannelPipelineCustomizer(bounds.pipeline())
                       .decorator(bounds::serve)
                       .service("/held", (ctx, req) -> {
                           CompletableFuture<HttpResponse> answer = new CompletableFuture<>();
                           held.add(answer);
                           arrived.incrementAndGet();
                           return HttpResponse.of(answer);
                       })
                       .maxRequestLength(4 * 1024 * 1024)
                       .service("/echo", (ctx, req) -> {
                           echoHeaders.incrementAndGet();
                           return HttpResponse.of(req.aggregate().thenApply(
                                   body -> HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT, body.contentUtf8())));
                       })
                       .build();
        server.start().join();
    }

    @AfterEach
    void stop() {
        answerAll(HttpStatus.OK);
        server.stop().join();
    }

    @Test
    void anAnonymousConnection_hasOneRequestInFlight_andOnceAccepted_sixteen() throws Exception {
        try (Socket client = new Socket("127.0.0.1", server.activeLocalPort())) {
            OutputStream out = client.getOutputStream();
            send(out, 1);
            awaitSteady(arrived::get, 1);

            send(out, 3);
            assertThat(awaitSteady(arrived::get, 1)).as("requests let in while one anonymous request is unanswered")
                                                    .isEqualTo(1);

            answerAll(HttpStatus.UNAUTHORIZED); // refused: the connection stays anonymous
            int afterRefusal = awaitSteady(arrived::get, 2);
            assertThat(afterRefusal).as("the next read, taken whole, then held again").isBetween(2, 4);

            answerAll(HttpStatus.OK); // accepted: sixteen in flight from now on
            int before = awaitSteady(arrived::get, 4);
            send(out, 40);
            int inFlight = awaitSteady(arrived::get, before + ConnectionBounds.IN_FLIGHT) - before;
            assertThat(inFlight).as("requests in flight on an accepted connection, of 40 sent one by one")
                                .isBetween(ConnectionBounds.IN_FLIGHT, ConnectionBounds.IN_FLIGHT + 8);

            answerAll(HttpStatus.OK);
            assertThat(awaitSteady(arrived::get, before + ConnectionBounds.IN_FLIGHT + 1))
                    .as("reading goes on once they are answered").isGreaterThan(before + inFlight);
        }
    }

    @Test
    void aBodySentAfterItsHeaders_isRead_onAnAnonymousConnection() throws Exception {
        // a request is counted once it has arrived whole: holding reads at its headers would starve its own body
        try (Socket client = new Socket("127.0.0.1", server.activeLocalPort())) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write("POST /echo HTTP/1.1\r\nHost: bounds\r\nContent-Length: 5\r\n\r\n"
                              .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Await.until("the headers were taken in, the body not yet sent", Duration.ofSeconds(10),
                        () -> echoHeaders.get() == 1);
            out.write("hello".getBytes(StandardCharsets.US_ASCII));
            out.flush();

            StringBuilder answer = new StringBuilder();
            InputStream in = client.getInputStream(); // an answer not in 10 s fails on the socket's timeout
            while (!answer.toString().endsWith("hello")) {
                int c = in.read();
                assertThat(c).as("the connection closed before the answer, after: " + answer).isNotNegative();
                answer.append((char) c);
            }
            assertThat(answer.toString()).startsWith("HTTP/1.1 200 OK");
        }
    }

    @Test
    void aBodyLargerThanOneRead_isReadWhole_onAnAnonymousConnection() throws Exception {
        // a request counts once it has arrived whole: holding reads at its headers would starve its own body
        String twoMegabytes = "x".repeat(2 * 1024 * 1024);
        java.net.http.HttpResponse<String> answer = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .build().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.activeLocalPort()
                                                                + "/echo"))
                                         .timeout(Duration.ofSeconds(20))
                                         .POST(HttpRequest.BodyPublishers.ofString(twoMegabytes)).build(),
                              java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(answer.body()).isEqualTo(twoMegabytes);
    }

    @Test
    void aKeptAliveClient_sendingOneRequestAfterAnother_isAnsweredEachTime() throws Exception {
        // each request reaches a connection whose last one was answered a moment ago: the bound must read it
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI echo = URI.create("http://127.0.0.1:" + server.activeLocalPort() + "/echo");
        for (int i = 0; i < 200; i++) {
            java.net.http.HttpResponse<String> answer = client.send(
                    HttpRequest.newBuilder(echo).timeout(Duration.ofSeconds(10))
                               .POST(HttpRequest.BodyPublishers.ofString("n" + i)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(answer.body()).isEqualTo("n" + i);
        }
    }

    private static void send(OutputStream out, int requests) throws IOException, InterruptedException {
        for (int i = 0; i < requests; i++) {
            out.write(REQUEST);
            out.flush();
            Thread.sleep(20);
        }
    }

    private void answerAll(HttpStatus status) {
        for (CompletableFuture<HttpResponse> answer; (answer = held.poll()) != null; ) {
            answer.complete(HttpResponse.of(status));
        }
    }

    /** Waits until {@code count} reached {@code atLeast} (30 s at most), then until it stays put for 500 ms. */
    private static int awaitSteady(IntSupplier count, int atLeast) {
        Await.until("at least " + atLeast + " requests arrived", Duration.ofSeconds(30),
                    () -> count.getAsInt() >= atLeast);
        return Await.settled(count, Duration.ofMillis(500), Duration.ofSeconds(30));
    }
}
