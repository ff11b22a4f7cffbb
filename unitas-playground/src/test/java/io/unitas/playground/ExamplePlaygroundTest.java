package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unitas.core.Region;
import io.unitas.example.ServiceCall;
import io.unitas.testkit.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The example service pair in the playground: an order service and an inventory service in every region, Spring
 * Boot with the unitas starter, reached through the gateways under {@code /example/}. A cn user's order entering at
 * eu's gateway is served by cn's order instance, which reserves in cn's inventory from its {@code @Async} method.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExamplePlaygroundTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final ObjectMapper JSON = new ObjectMapper();
    // HTTP/1.1: the gateways answer the JDK client's h2c upgrade of a POST with 413 (docs/playground.md)
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Playground p;

    @BeforeAll
    void start() {
        p = Playground.builder().portsFrom(Ports.range(50)).example(true).start();
        p.awaitReady(Duration.ofSeconds(90));
    }

    @AfterAll
    void stop() {
        p.close();
    }

    @Test
    void a_cn_users_order_entering_at_eu_reaches_cns_order_instance_and_then_cns_inventory_from_the_async_method()
            throws Exception {
        ExampleCalls before = p.exampleCalls();

        HttpResponse<String> res = order(p.gateway(EU), p.userId(CN, 7));

        assertThat(res.statusCode()).as(res.body()).isEqualTo(201);
        JsonNode order = JSON.readTree(res.body());
        assertThat(order.path("unit").asText()).isEqualTo("u-cn");
        assertThat(order.path("region").asText()).as("the order instance's region").isEqualTo("cn");
        assertThat(order.path("inventory").path("region").asText()).as("the inventory instance's region")
                                                                   .isEqualTo("cn");
        ExampleCalls calls = p.exampleCalls().since(before);
        assertThat(calls.calls()).as("the order call and the inventory call").isEqualTo(2);
        assertThat(calls.crossUnit()).isEqualTo(2);
        assertThat(calls.wrongRegion()).isZero();
    }

    @Test
    void every_users_order_is_served_in_its_home_whichever_gateway_it_enters() throws Exception {
        ExampleCalls before = p.exampleCalls();
        List<String> served = new ArrayList<>();
        for (Region home : p.regions()) {
            for (Region entry : p.regions()) {
                HttpResponse<String> res = order(p.gateway(entry), p.userId(home, 3));
                assertThat(res.statusCode()).as(res.body()).isEqualTo(201);
                JsonNode order = JSON.readTree(res.body());
                served.add(home + "@" + entry + " -> " + order.path("region").asText() + "/"
                           + order.path("inventory").path("region").asText());
            }
        }

        assertThat(served).allSatisfy(s -> {
            String home = s.substring(0, s.indexOf('@'));
            assertThat(s).endsWith("-> " + home + "/" + home);
        });
        ExampleCalls calls = p.exampleCalls().since(before);
        assertThat(calls.crossUnit()).isEqualTo(2L * p.regions().size() * p.regions().size());
        assertThat(calls.wrongRegion()).isZero();
    }

    @Test
    void a_call_served_outside_the_region_its_unit_was_routed_to_is_counted() {
        WrongRegionCounter counter = new WrongRegionCounter();

        counter.accept(new ServiceCall("inventory", "inventory-eu", "eu", "/inventory/book/reservations", "u-cn",
                                       "cn", "eu", "order-async-1", "cn"));
        counter.accept(new ServiceCall("inventory", "inventory-eu", "eu", "/inventory/book/reservations", "u-cn",
                                       "eu", "eu", "order-async-1", "cn")); // cn failed over to eu: not wrong

        assertThat(counter.counts()).isEqualTo(new ExampleCalls(2, 2, 1));
        assertThat(counter.latestWrong()).hasSize(1);
    }

    @Test
    void the_example_runs_with_unitas_shops_only() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> Playground.builder().portsFrom(Ports.range(50)).mode(ShopMode.NAIVE).example(true).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unitas shops only");
    }

    private HttpResponse<String> order(URI gateway, String user) throws Exception {
        return http.send(HttpRequest.newBuilder(gateway.resolve("/example/orders")).header("x-user-id", user)
                                    .timeout(Duration.ofSeconds(60))
                                    .header("content-type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"book\",\"quantity\":1}"))
                                    .build(), HttpResponse.BodyHandlers.ofString());
    }
}
