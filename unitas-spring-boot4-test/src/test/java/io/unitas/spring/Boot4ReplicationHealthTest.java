package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.unitas.spring.boot4replicated.Boot4NotesApp;
import io.unitas.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * On Spring Boot 4: {@code /actuator/health/unitasReplication} answers from the shipper and applier as on Boot 3. Two
 * regions (eu, us), each its own H2 database, on the embedded transport: UP with the transport and handlers while
 * changes apply; a change of a type eu has no handler for stops its unit, and eu's component is DOWN (503) naming the
 * unit and the type; {@code /actuator/health/unitas} (the group of the {@code unitasRegion} component) answers too.
 */
class Boot4ReplicationHealthTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final String group = "boot4-" + UUID.randomUUID();
    private ConfigurableApplicationContext eu;
    private ConfigurableApplicationContext us;

    @AfterEach
    void stop() {
        for (ConfigurableApplicationContext c : new ConfigurableApplicationContext[] {eu, us}) {
            if (c != null) {
                c.close();
            }
        }
    }

    private ConfigurableApplicationContext region(String region, String... more) {
        return new SpringApplicationBuilder(Boot4NotesApp.class).run(args(region, more));
    }

    private String[] args(String region, String... more) {
        Map<String, String> args = new LinkedHashMap<>();
        for (String arg : List.of(
                "--server.port=0",
                "--spring.datasource.url=jdbc:h2:mem:notes-" + region + "-" + group + ";DB_CLOSE_DELAY=-1",
                "--unitas.region=" + region,
                "--unitas.replication.transport=embedded",
                "--unitas.replication.embedded.group=" + group,
                "--unitas.replication.regions=eu,us",
                "--unitas.replication.ship-interval=20ms",
                "--management.endpoints.web.exposure.include=health,unitas",
                "--management.endpoint.health.show-details=always",
                "--management.endpoint.health.show-components=always")) {
            args.put(arg.substring(0, arg.indexOf('=')), arg);
        }
        for (String arg : more) {
            args.put(arg.substring(0, arg.indexOf('=')), arg);
        }
        return args.values().toArray(String[]::new);
    }

    private static HttpResponse<String> health(ConfigurableApplicationContext region, String component) {
        String port = region.getEnvironment().getProperty("local.server.port");
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/"
                                                               + component)).build(),
                             HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A reason that takes the instance out of service, as the consistency gate does over its budget. */
    @Configuration(proxyBeanMethods = false)
    static class GatingReason {
        @Bean
        UnitasHealthReasons overBudget() {
            return () -> List.of(new UnitasHealthReasons.Reason("note: lag 9 s over its 5 s staleness budget",
                                                                UnitasHealthReasons.Effect.OUT_OF_SERVICE));
        }
    }

    @Test
    void aReasonThatGates_takesTheRegionComponentOutOfService_asOnBoot3() {
        us = new SpringApplicationBuilder(Boot4NotesApp.class, GatingReason.class).run(args("us"));

        HttpResponse<String> unitas = health(us, "unitas");
        assertThat(unitas.statusCode()).as(unitas.body()).isEqualTo(503);
        assertThat(unitas.body()).contains("\"status\":\"OUT_OF_SERVICE\"", "\"unitasRegion\"",
                                           "over its 5 s staleness budget");
    }

    @Test
    void theReplicationComponent_isUpWhileChangesApply_andDownNamingAChangeWithoutAHandler() {
        us = region("us");
        eu = region("eu", "--notes.handler=false");

        // us's rounds fail until eu has joined the group; its next round after that is UP
        AtomicReference<HttpResponse<String>> last = new AtomicReference<>();
        Await.until("us's unitasReplication UP once eu runs", WAIT,
                    () -> last.updateAndGet(r -> health(us, "unitasReplication")).statusCode() == 200);
        HttpResponse<String> up = last.get();
        assertThat(up.body()).contains("\"status\":\"UP\"", "\"transport\":\"embedded\"", "\"handlers\":[\"note\"]",
                                       "\"region\":\"us\"");
        HttpResponse<String> unitas = health(us, "unitas");
        assertThat(unitas.statusCode()).as(unitas.body()).isEqualTo(200);
        assertThat(unitas.body()).contains("\"status\":\"UP\"", "\"unitasRegion\"", "\"region\":\"us\"");

        us.getBean(Boot4NotesApp.Notes.class).write("74", "n-74", "hello");

        Await.until("eu's unitasReplication DOWN, naming the note without a handler", WAIT, () -> {
            HttpResponse<String> down = health(eu, "unitasReplication");
            return down.statusCode() == 503 && down.body().contains("\"status\":\"DOWN\"")
                   && down.body().contains("u-us") && down.body().contains("no handler for entity type 'note'");
        });
        assertThat(eu.getBean(Boot4NotesApp.Notes.class).read("n-74")).as("not applied without a handler").isNull();

        eu.close();
        eu = region("eu");
        Await.until("applied once eu has the handler", WAIT,
                    () -> "hello".equals(eu.getBean(Boot4NotesApp.Notes.class).read("n-74")));
        Await.until("eu's unitasReplication UP again", WAIT,
                    () -> health(eu, "unitasReplication").statusCode() == 200);
    }
}
