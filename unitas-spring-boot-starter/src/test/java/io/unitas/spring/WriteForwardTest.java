package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.forward.ForwardApp;
import io.unitas.spring.forwardreactive.ForwardReactiveApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code unitas.write-guard.mode: forward}, Servlet and WebFlux: a us user's deposit that reaches eu runs in us (a
 * real instance of the service there) and its answer comes back as us gave it; a write forwarded once is not forwarded
 * again when the two regions' routing states disagree; a home that does not answer is a 504 naming the timeout.
 */
class WriteForwardTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static ServerSocket silentCn;
    private static ConfigurableApplicationContext us;
    private static ConfigurableApplicationContext euServlet;
    private static ConfigurableApplicationContext euReactive;

    @BeforeAll
    static void start() throws IOException {
        // cn's "instance": accepts connections (the kernel's backlog) and never answers
        silentCn = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        // us forwards too: without the one-hop rule it would pass on what eu forwarded to it
        us = new SpringApplicationBuilder(ForwardApp.class).run(
                "--server.port=0", "--unitas.region=us", "--unitas.write-guard.mode=forward",
                "--unitas.write-guard.forward.targets.cn=http://127.0.0.1:" + silentCn.getLocalPort(),
                "--unitas.write-guard.forward.targets.eu=http://127.0.0.1:9", "--unitas.write-guard.forward.timeout=1s");
        String[] forward = {"--server.port=0", "--unitas.region=eu", "--unitas.write-guard.mode=forward",
                            "--unitas.write-guard.forward.targets.us=http://127.0.0.1:" + port(us),
                            "--unitas.write-guard.forward.targets.cn=http://127.0.0.1:" + silentCn.getLocalPort(),
                            "--unitas.write-guard.forward.timeout=1s"};
        euServlet = new SpringApplicationBuilder(ForwardApp.class).run(forward);
        euReactive = new SpringApplicationBuilder(ForwardReactiveApp.class)
                .properties("spring.main.web-application-type=reactive").run(forward);
    }

    @AfterAll
    static void stop() throws IOException {
        for (ConfigurableApplicationContext c : new ConfigurableApplicationContext[] {euReactive, euServlet, us}) {
            if (c != null) {
                c.close();
            }
        }
        silentCn.close();
    }

    @AfterEach
    void healthy() {
        us.getBean(MutableRoutingState.class).move(null, null);
    }

    private static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    private static ConfigurableApplicationContext eu(String stack) {
        return stack.equals("servlet") ? euServlet : euReactive;
    }

    private static HttpResponse<String> deposit(ConfigurableApplicationContext at, String user, String body,
                                                String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + port(at) + "/wallets/" + user + "/deposits?note=rent%20june"))
                .header("x-user-id", user).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"servlet", "reactive"})
    void aUsUsersDepositReachingEu_runsInUs_andUsAnswerIsRelayedAsItCame(String stack) throws Exception {
        int before = ForwardApp.DEPOSITS.computeIfAbsent("us", r -> new java.util.concurrent.atomic.AtomicInteger())
                                        .get();

        HttpResponse<String> r = deposit(eu(stack), "70", "{\"amount\":5}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(r.headers().firstValue("Location")).hasValue("/wallets/70/deposits/1");
        assertThat(r.headers().firstValue("X-Deposit-Served-In")).hasValue("us");
        assertThat(r.headers().firstValue("x-unitas-forwarded-to")).hasValue("us");
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/json"));
        assertThat(r.body()).contains("\"user\":\"70\"", "\"servedIn\":\"us\"", "\"unit\":\"u-us\"",
                                      "\"body\":\"{\\\"amount\\\":5}\"", "\"note\":\"rent june\"",
                                      // the stamp eu placed the request with travels, and the one-hop marker
                                      "\"stampUnit\":\"u-us\"", "\"forwardedBy\":\"eu\"");
        assertThat(ForwardApp.DEPOSITS.get("us").get()).isEqualTo(before + 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"servlet", "reactive"})
    void aWriteEuTakes_runsInEu_andIsNotForwarded(String stack) throws Exception {
        HttpResponse<String> r = deposit(eu(stack), "40", "{\"amount\":5}");
        assertThat(r.statusCode()).as(r.body()).isIn(200, 201);
        assertThat(r.body()).contains("\"servedIn\":\"eu\"");
        assertThat(r.headers().firstValue("x-unitas-forwarded-to")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"servlet", "reactive"})
    void whenTheRegionsDisagree_aForwardedWriteIsRefused_notForwardedBack(String stack) throws Exception {
        // us has seen u-us move to cn (a switchover eu has not seen yet): it refuses the write eu sends it rather
        // than forward it on to cn
        us.getBean(MutableRoutingState.class).move("u-us", "cn");

        HttpResponse<String> r = deposit(eu(stack), "70", "{\"amount\":5}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(421);
        assertThat(r.headers().firstValue("x-unitas-forwarded-to")).hasValue("us");
        assertThat(r.body()).contains("urn:unitas:problem:not-home-region", "\"region\":\"us\"",
                                      "\"forwarded-by\":\"eu\"", "a write is forwarded once");
    }

    @ParameterizedTest
    @ValueSource(strings = {"servlet", "reactive"})
    void aWriteThatArrivesForwarded_isRefusedHere_notForwardedAgain(String stack) throws Exception {
        HttpResponse<String> r = deposit(eu(stack), "70", "{}", "x-unitas-forwarded-by", "cn");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(421);
        assertThat(r.headers().firstValue("x-unitas-forwarded-to")).isEmpty();
        assertThat(r.body()).contains("\"region\":\"eu\"", "\"forwarded-by\":\"cn\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"servlet", "reactive"})
    void aRegionThatDoesNotAnswer_isA504NamingTheTimeout(String stack) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> r = deposit(eu(stack), "5", "{\"amount\":5}");
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(r.statusCode()).as(r.body()).isEqualTo(504);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.body()).contains("urn:unitas:problem:upstream-timeout",
                                      "a write of unit u-cn forwarded from eu to cn",
                                      "had no answer within 1000 ms (unitas.write-guard.forward.timeout)");
        assertThat(tookMs).as("bounded by the timeout").isGreaterThanOrEqualTo(1000).isLessThan(10_000);
    }
}
