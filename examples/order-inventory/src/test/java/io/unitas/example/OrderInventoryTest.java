package io.unitas.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.example.ExampleService.Kind;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pair as the playground runs it, in one JVM: an order and an inventory instance in each of cn, eu and us, the
 * inventories listed with their {@code unitas.region} in Spring Cloud's simple discovery. An order reaches the order
 * instance of the region its unit is routed to (as a gateway sends it); the order service reserves stock from an
 * {@code @Async} method, and the inventory instance that answers must be the one of that region. An order written at
 * another region's instance is refused there (421 {@code not-home-region}) before it reserves anything.
 */
class OrderInventoryTest {

    private static final List<String> REGIONS = List.of("cn", "eu", "us");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Map<String, ExampleService> inventories = new LinkedHashMap<>();
    private static final Map<String, ExampleService> orders = new LinkedHashMap<>();

    @BeforeAll
    static void start() {
        for (String region : REGIONS) {
            inventories.put(region, ExampleService.start(Kind.INVENTORY, common(region)));
        }
        for (String region : REGIONS) {
            Map<String, String> p = common(region);
            int i = 0;
            for (Map.Entry<String, ExampleService> inv : inventories.entrySet()) {
                String prefix = "spring.cloud.discovery.client.simple.instances.inventory[" + i++ + "].";
                p.put(prefix + "uri", "http://127.0.0.1:" + inv.getValue().port());
                p.put(prefix + "instance-id", "inventory-" + inv.getKey());
                p.put(prefix + "metadata[unitas.region]", inv.getKey());
            }
            orders.put(region, ExampleService.start(Kind.ORDER, p));
        }
    }

    private static Map<String, String> common(String region) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("unitas.region", region);
        p.put("unitas.topology", "classpath:unitas/topology.yaml");
        p.put("unitas.rules", "classpath:unitas/rules.yaml");
        return p;
    }

    @AfterAll
    static void stop() {
        List<ExampleService> all = new ArrayList<>(orders.values());
        all.addAll(inventories.values());
        all.forEach(ExampleService::close);
    }

    private final Map<String, Long> before = new LinkedHashMap<>();

    @BeforeEach
    void countBefore() {
        inventories.forEach((region, s) -> before.put(region, s.calls().calls()));
    }

    @Test
    void aCnUserEnteringAtEu_reachesCnsOrderInstance_andThenCnsInventory_fromTheAsyncMethod() throws Exception {
        // What cn's gateway forwards after eu's gateway sent the request on: the stamp names unit, region, origin.
        HttpResponse<String> res = post(orders.get("cn"), Map.of("x-unitas-unit", "u-cn", "x-unitas-region", "cn",
                                                                  "x-unitas-origin", "eu", "x-unitas-hops", "1"));

        assertThat(res.statusCode()).isEqualTo(201);
        assertThat(res.body()).contains("\"region\":\"cn\"", "\"instance\":\"inventory-cn\"", "\"unit\":\"u-cn\"");
        ServiceCall call = last(inventories.get("cn"));
        assertThat(call.unit()).isEqualTo("u-cn");
        assertThat(call.routedTo()).isEqualTo("cn");
        assertThat(call.origin()).isEqualTo("eu");
        assertThat(call.thread()).as("the inventory call was made on Boot's @Async executor").startsWith("order-async-");
        assertThat(call.wrongRegion()).isFalse();
        assertOnlyCalled("cn");
    }

    @Test
    void eachUnitsOrder_atItsRegionsOrderInstance_reservesInThatRegion() throws Exception {
        for (String region : REGIONS) {
            HttpResponse<String> res = post(orders.get(region), Map.of("x-unitas-unit", "u-" + region,
                                                                       "x-unitas-region", region));
            assertThat(res.statusCode()).isEqualTo(201);
            assertThat(last(inventories.get(region)).unit()).isEqualTo("u-" + region);
        }
        inventories.values().forEach(s -> assertThat(s.calls().wrongRegion()).isZero());
    }

    @Test
    void anOrderAtAnotherRegionsInstance_isRefused_andReservesNothing() throws Exception {
        for (String region : REGIONS) {
            for (String other : REGIONS) {
                if (other.equals(region)) {
                    continue;
                }
                countBefore();
                HttpResponse<String> res = post(orders.get(other), Map.of("x-unitas-unit", "u-" + region,
                                                                          "x-unitas-region", region));
                assertThat(res.statusCode()).as(res.body()).isEqualTo(421);
                assertThat(res.body()).contains("urn:unitas:problem:not-home-region", "\"home\":\"" + region + "\"",
                                                "\"region\":\"" + other + "\"");
                assertOnlyCalled(null);
            }
        }
    }

    @Test
    void aCallWithoutAStamp_isPlacedByTheUserKey_withTheGatewaysRules() throws Exception {
        HttpResponse<String> res = post(orders.get("us"), Map.of("x-user-id", "2042")); // 2042 mod 3000: u-us

        assertThat(res.statusCode()).isEqualTo(201);
        assertThat(last(inventories.get("us")).unit()).isEqualTo("u-us");
        assertOnlyCalled("us");
        countBefore();
        assertThat(post(orders.get("eu"), Map.of("x-user-id", "2042")).statusCode()).as("at eu's instance")
                .isEqualTo(421);
        assertOnlyCalled(null);
    }

    @Test
    void aCallWithoutAUnit_staysInTheCallersRegion() throws Exception {
        HttpResponse<String> res = post(orders.get("eu"), Map.of());

        assertThat(res.statusCode()).isEqualTo(201);
        ServiceCall call = last(inventories.get("eu"));
        assertThat(call.unit()).isNull();
        assertThat(call.crossUnit()).isFalse();
        assertOnlyCalled("eu");
    }

    @Test
    void aCallServedOutsideTheRegionItIsRoutedTo_isCountedWrong() {
        CallLog log = new CallLog();
        List<ServiceCall> told = new ArrayList<>();
        log.listen(told::add);

        log.record(new ServiceCall("inventory", "inventory-eu", "eu", "/x", "u-cn", "cn", "eu", null, "cn"));
        log.record(new ServiceCall("inventory", "inventory-eu", "eu", "/x", "u-cn", "eu", "eu", null, "cn")); // failover
        log.record(new ServiceCall("inventory", "inventory-eu", "eu", "/x", null, null, null, null, null));
        // the unit moved to eu while the call was under way: it went where the unit lives now
        log.record(new ServiceCall("inventory", "inventory-eu", "eu", "/x", "u-cn", "cn", "eu", null, "eu"));

        assertThat(log.calls()).isEqualTo(4);
        assertThat(log.crossUnit()).isEqualTo(3);
        assertThat(log.wrongRegion()).isEqualTo(1);
        assertThat(told).hasSize(4);
    }

    /** Exactly one call since {@link #countBefore}, to {@code region}'s inventory ({@code null}: none). */
    private void assertOnlyCalled(String region) {
        inventories.forEach((r, s) -> assertThat(s.calls().calls() - before.get(r))
                .as("calls to inventory-" + r).isEqualTo(r.equals(region) ? 1 : 0));
    }

    private static ServiceCall last(ExampleService s) {
        List<ServiceCall> latest = s.calls().latest();
        assertThat(latest).isNotEmpty();
        return latest.get(latest.size() - 1);
    }

    private static HttpResponse<String> post(ExampleService order, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + order.port() + "/orders"))
                                           .header("content-type", "application/json")
                                           .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"book\",\"quantity\":1}"));
        headers.forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
