package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code unitas sagas} against a server answering as a service's {@code /actuator/sagas} does (the starter's
 * {@code SagaEndpoint}: its JSON fields, its 404 and 409 with {@code error}): the list printed as a table, retry and
 * resolve sent as the endpoint's action with who and why, a refusal and an unreachable service each one line with
 * its exit code.
 */
class SagasCommandTest {

    private HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/actuator/sagas", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getRawPath();
            requests.add(exchange.getRequestMethod() + " " + path + " " + body);
            int status;
            String answer;
            if (path.equals("/actuator/sagas")) {
                status = 200;
                answer = "{\"stuck\":[{\"id\":\"s-1\",\"saga\":\"transfer\",\"state\":\"failed\",\"step\":1,"
                         + "\"attempts\":5,\"compensating\":true,\"last_error\":\"eu: connection refused\","
                         + "\"owner\":null,\"updated_at\":\"2026-12-05T03:00:00Z\"}]}";
            } else if (path.equals("/actuator/sagas/s-1")) {
                status = 200;
                answer = "{\"id\":\"s-1\",\"saga\":\"transfer\",\"state\":\""
                         + (body.contains("resolve-compensated") ? "compensated" : "compensating") + "\"}";
            } else if (path.equals("/actuator/sagas/s-2")) {
                status = 409;
                answer = "{\"error\":\"saga s-2: completed, not stuck (expected: a stuck saga)\"}";
            } else {
                status = 404;
                answer = "{\"error\":\"saga " + path.substring(path.lastIndexOf('/') + 1)
                         + ": not found (expected: a saga's id)\"}";
            }
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void list_printsTheStuckSagas() {
        Cli r = Cli.run("sagas", "list", "--service", url());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("id\tsaga\tstate\tstep\tattempts\tupdated_at\tlast_error\n"
                                      + "s-1\ttransfer\tfailed (compensating)\t1\t5\t2026-12-05T03:00:00Z\teu:"
                                      + " connection refused\n");
        assertThat(requests).containsExactly("GET /actuator/sagas ");
    }

    @Test
    void retryAndResolve_sendTheEndpointsActions_withWhoAndWhy() {
        Cli retry = Cli.run("sagas", "retry", "s-1", "--service", url() + "/", "--who", "ops:lin",
                            "--why", "eu is back");
        Cli resolve = Cli.run("sagas", "resolve", "s-1", "--as", "compensated", "--service", url(), "--who",
                              "ops:lin", "--why", "refunded by hand");

        assertThat(retry.exit()).as(retry.err()).isZero();
        assertThat(retry.out()).isEqualTo("s-1: compensating (retry by ops:lin, on record)\n");
        assertThat(resolve.exit()).as(resolve.err()).isZero();
        assertThat(resolve.out()).isEqualTo("s-1: compensated (resolve-compensated by ops:lin, on record)\n");
        assertThat(requests).containsExactly(
                "POST /actuator/sagas/s-1 {\"action\":\"retry\",\"who\":\"ops:lin\",\"why\":\"eu is back\"}",
                "POST /actuator/sagas/s-1 {\"action\":\"resolve-compensated\",\"who\":\"ops:lin\","
                + "\"why\":\"refunded by hand\"}");
    }

    @Test
    void aRefusal_isOneLine_exit3() {
        Cli notStuck = Cli.run("sagas", "retry", "s-2", "--service", url(), "--who", "ops", "--why", "again");
        Cli unknown = Cli.run("sagas", "retry", "nope", "--service", url(), "--who", "ops", "--why", "again");

        assertThat(notStuck.exit()).isEqualTo(3);
        assertThat(notStuck.err()).isEqualTo(url() + "/actuator/sagas/s-2: HTTP 409: saga s-2: completed, not stuck"
                                             + " (expected: a stuck saga)\n");
        assertThat(unknown.exit()).isEqualTo(3);
        assertThat(unknown.err()).contains("HTTP 404: saga nope: not found").hasLineCount(1);
    }

    @Test
    void badInput_isOneLine_exit2_andAnUnreachableService_exit1() {
        Cli badUrl = Cli.run("sagas", "list", "--service", "localhost:8080");
        Cli blank = Cli.run("sagas", "retry", "s-1", "--service", url(), "--who", " ", "--why", "x");
        server.stop(0);
        Cli down = Cli.run("sagas", "list", "--service", url());

        assertThat(badUrl.exit()).isEqualTo(2);
        assertThat(badUrl.err()).isEqualTo("--service: 'localhost:8080' (expected: http://host:port or"
                                           + " https://host:port)\n");
        assertThat(blank.exit()).isEqualTo(2);
        assertThat(blank.err()).hasLineCount(1).contains("(expected: all given, an action is on record)");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.err()).hasLineCount(1).contains("cannot reach the service");
    }
}
