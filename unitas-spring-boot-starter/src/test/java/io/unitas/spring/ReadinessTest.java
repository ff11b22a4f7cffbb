package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import io.unitas.core.Region;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.data.remote.StoredEntity;
import io.unitas.spring.readiness.AccountsApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link UnitasReadiness} on a Servlet service in eu, its repository an embedded database, and cn's home read server
 * (the data layer's, real, over HTTP/2) configured in {@code unitas.readiness.home-reads}: a fresh local copy is
 * served from here, a missing or stale one is read from cn, a true "not found" only when cn says so, and a 503
 * {@code data-not-ready} with {@code Retry-After} when the home cannot vouch for it (cn fails, or no read server of
 * us is configured).
 */
@SpringBootTest(classes = AccountsApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {"unitas.readiness.retry-after=3s", "unitas.readiness.home-reads.token=secret-t",
                              "unitas.readiness.home-reads.timeout=60s"})
class ReadinessTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** cn's store: its users' accounts; user 12's read fails there. */
    private static final Map<String, String> CN_STORE = Map.of("10", "cn user 10", "13", "cn user 13, current");

    private static HomeReadServer cn;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void cnHome(DynamicPropertyRegistry registry) {
        cn = HomeReadServer.builder().region(Region.of("cn")).owns("u-cn"::equals).token("secret-t")
                .reader("account", (unit, holder) -> {
                    if ("12".equals(holder)) {
                        throw new IllegalStateException("cn's accounts table is being repaired");
                    }
                    return Optional.ofNullable(CN_STORE.get(holder)).map(name -> new StoredEntity(
                            1, name.getBytes(StandardCharsets.UTF_8), Instant.now()));
                })
                .start();
        registry.add("unitas.readiness.home-reads.endpoints.cn", () -> cn.uri().toString());
    }

    @AfterAll
    static void stop() {
        cn.close();
    }

    private HttpResponse<String> account(String holder) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/accounts/" + holder))
                                    .timeout(Duration.ofSeconds(60)).build(),
                         HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aFreshLocalCopy_isServedFromHere() throws Exception {
        HttpResponse<String> r = account("40");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"name\":\"eu user 40\"", "\"from\":\"LOCAL\"");
    }

    @Test
    void anEntityNotHere_isReadFromItsHome() throws Exception {
        HttpResponse<String> r = account("10");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"name\":\"cn user 10\"", "\"from\":\"HOME\"");
    }

    @Test
    void aStaleLocalCopy_isPassedOverForTheHomes() throws Exception {
        HttpResponse<String> r = account("13");
        assertThat(r.body()).contains("\"name\":\"cn user 13, current\"", "\"from\":\"HOME\"");
    }

    @Test
    void notFound_onlyWhenTheHomeSaysSo() throws Exception {
        assertThat(account("11").statusCode()).isEqualTo(404);
    }

    @Test
    void aHomeThatFails_isDataNotReady_503WithRetryAfter() throws Exception {
        HttpResponse<String> r = account("12");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(r.headers().firstValue("Retry-After")).contains("3");
        assertThat(r.body()).contains("data-not-ready");
    }

    @Test
    void aHomeWithoutAReadServer_isDataNotReady_neverNotFound() throws Exception {
        HttpResponse<String> r = account("70");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        assertThat(r.body()).contains("data-not-ready", "us");
    }
}
