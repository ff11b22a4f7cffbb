package com.example.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

/**
 * A Boot 4.0 project exactly as Spring Initializr makes it, with unitas-bom, the starter and unitas-data added as
 * docs/spring.md says: it starts (Armeria's home-read server and client on the Netty 4.2 Boot 4 manages too, no
 * clash), and {@code /actuator/health/unitas} answers over HTTP with Boot's defaults, no {@code show-components} set.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "unitas.readiness.home-reads.server.port=0",
        "unitas.readiness.home-reads.endpoints.cn=http://127.0.0.1:9"})
class DemoApplicationTests {

    @Autowired
    Environment environment;

    @Autowired
    ApplicationContext context;

    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> get(String path) throws Exception {
        String port = environment.getProperty("local.server.port");
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                           HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void startsWithTheDataLayer_onTheNettyArmeriaNeeds() {
        assertThat(io.netty.util.Version.identify().get("netty-common").artifactVersion()).startsWith("4.2.");
        assertThat(context.containsBean("unitasHomeReadServing")).isTrue();
        assertThat(context.containsBean("unitasReadiness")).isTrue();
        assertThat(org.springframework.boot.SpringBootVersion.getVersion()).startsWith("4.0.");
    }

    @Test
    void actuatorHealthUnitas_answersWithBootsDefaults() throws Exception {
        HttpResponse<String> unitas = get("/actuator/health/unitas");

        assertThat(unitas.statusCode()).as(unitas.body()).isEqualTo(200);
        assertThat(unitas.body()).contains("\"status\":\"UP\"");
    }
}
