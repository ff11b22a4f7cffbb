package io.unitas.spring.jdk21;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The routing context on virtual threads (JDK 21+): Spring Boot's {@code spring.threads.virtual.enabled} puts requests
 * and {@code @Async} methods on virtual threads, and an application's own virtual-thread executor, wrapped, carries
 * the context into its tasks and out on their calls. The build targets Java 17, so this class runs in its own
 * surefire execution on a JDK 25 (the {@code jdk25} profile, on when that JDK is installed); on an older JDK it fails
 * at once rather than passing unseen.
 */
@SpringBootTest(classes = VirtualThreadsApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = "spring.threads.virtual.enabled=true")
class VirtualThreadsTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @BeforeAll
    static void onAJdkWithVirtualThreads() {
        assertThat(Runtime.version().feature())
                .as("this class needs JDK 21 or later: the jdk25 profile's surefire execution runs it")
                .isGreaterThanOrEqualTo(21);
    }

    private String get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                                           .timeout(Duration.ofSeconds(60));
        if (headers.length > 0) {
            b.headers(headers);
        }
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    @Test
    void aRequestOnAVirtualThread_seesItsStamp() throws Exception {
        assertThat(get("/here", "x-unitas-unit", "u-us", "x-unitas-region", "us"))
                .contains("\"unit\":\"u-us\"", "\"virtual\":\"true\"");
    }

    @Test
    void anAsyncMethodOnBootsVirtualThreadExecutor_seesTheRequestsUnit() throws Exception {
        assertThat(get("/async", "x-unitas-unit", "u-cn", "x-unitas-region", "cn"))
                .contains("\"unit\":\"u-cn\"", "\"virtual\":\"true\"");
    }

    @Test
    void theApplicationsVirtualThreadExecutor_carriesTheContextInAndOutOnItsCalls() throws Exception {
        assertThat(get("/pool", "x-unitas-unit", "u-eu", "x-unitas-region", "eu"))
                .contains("\"unit\":\"u-eu\"", "\"virtual\":\"true\"", "\"callee.unit\":\"u-eu\"");
    }

    @Test
    void theNextRequestWithoutAStamp_hasNoUnit() throws Exception {
        get("/async", "x-unitas-unit", "u-us", "x-unitas-region", "us");
        assertThat(get("/async")).contains("\"unit\":\"null\"");
        assertThat(get("/pool")).contains("\"unit\":\"null\"", "\"callee.unit\":\"null\"");
    }

    @Test
    void withoutSpring_aWrappedVirtualThreadExecutorCarriesTheContext_andAPlainVirtualThreadStartsEmpty()
            throws Exception {
        ExecutorService virtual = (ExecutorService) Executors.class
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(new RoutingContext("u-cn", "cn", null, 0,
                                                                                         null))) {
            Callable<String> unit = () -> RoutingContextHolder.current().unit();
            assertThat(RoutingContextHolder.wrap(virtual).submit(unit).get()).isEqualTo("u-cn");
            assertThat(virtual.submit(unit).get()).as("not wrapped").isNull();
        } finally {
            virtual.shutdownNow();
        }
    }
}
