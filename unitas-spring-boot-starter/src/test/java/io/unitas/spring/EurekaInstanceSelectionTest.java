package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.registry.CallerApp;
import io.unitas.spring.registry.RegistryApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.loadbalancer.DefaultRequest;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.client.loadbalancer.RequestData;
import org.springframework.cloud.client.loadbalancer.RequestDataContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.util.LinkedMultiValueMap;

/**
 * Instance selection through a real Eureka registry: instances of {@code inventory} registered in cn, eu and us
 * (one a gray {@code v2} in eu) with their {@code unitas.*} metadata; a service in eu picks by the request's unit.
 */
class EurekaInstanceSelectionTest {

    private static String eurekaUrl;
    private static ConfigurableApplicationContext registry;
    private static ConfigurableApplicationContext caller;
    private static LoadBalancerClient loadBalancer;
    private static MutableRoutingState state;

    @BeforeAll
    static void start() throws Exception {
        registry = new SpringApplicationBuilder(RegistryApp.class)
                .run("--server.port=0", "--unitas.enabled=false", "--eureka.client.enabled=true",
                     "--eureka.client.register-with-eureka=false", "--eureka.client.fetch-registry=false",
                     "--eureka.server.enable-self-preservation=false",
                     "--eureka.server.use-read-only-response-cache=false",
                     "--spring.application.name=registry");
        int port = ((WebServerApplicationContext) registry).getWebServer().getPort();
        String eureka = "http://localhost:" + port + "/eureka/";
        eurekaUrl = eureka;
        register(eureka, "INVENTORY", "inventory-cn-1", 9001, Map.of("unitas.region", "cn"));
        register(eureka, "INVENTORY", "inventory-cn-2", 9002, Map.of("unitas.region", "cn"));
        register(eureka, "INVENTORY", "inventory-eu-1", 9003, Map.of("unitas.region", "eu"));
        register(eureka, "INVENTORY", "inventory-eu-gray", 9004, Map.of("unitas.region", "eu", "unitas.version", "v2"));
        register(eureka, "INVENTORY", "inventory-us-1", 9005, Map.of("unitas.region", "us"));
        register(eureka, "ACCOUNTS", "accounts-cn-1", 9006, Map.of("unitas.region", "cn"));
        register(eureka, "ACCOUNTS", "accounts-eu-1", 9007, Map.of("unitas.region", "eu"));
        caller = new SpringApplicationBuilder(CallerApp.class)
                .run("--spring.main.web-application-type=none", "--spring.application.name=orders",
                     "--eureka.client.enabled=true", "--unitas.instance.version=v3",
                     "--eureka.client.initial-instance-info-replication-interval-seconds=1",
                     "--eureka.client.registry-fetch-interval-seconds=1", "--eureka.client.jersey.enabled=false",
                     "--eureka.client.service-url.defaultZone=" + eureka);
        DiscoveryClient discovery = caller.getBean(DiscoveryClient.class);
        await("five inventory instances in the caller's copy of the registry").atMost(Duration.ofSeconds(60))
                .until(() -> discovery.getInstances("inventory").size() == 5
                             && discovery.getInstances("accounts").size() == 2);
        loadBalancer = caller.getBean(LoadBalancerClient.class);
        state = caller.getBean(MutableRoutingState.class);
    }

    @AfterAll
    static void stop() {
        if (caller != null) {
            caller.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    @AfterEach
    void healthy() {
        state.down(null);
    }

    /** Registers an instance as any Eureka client does: {@code POST /eureka/apps/{app}} with its metadata. */
    private static void register(String eureka, String app, String id, int port, Map<String, String> metadata)
            throws Exception {
        StringBuilder meta = new StringBuilder();
        metadata.forEach((k, v) -> meta.append(meta.length() == 0 ? "" : ",")
                .append('"').append(k).append("\":\"").append(v).append('"'));
        String body = """
                {"instance": {"instanceId": "%s", "hostName": "localhost", "app": "%s",
                  "vipAddress": "%s", "secureVipAddress": "%s", "ipAddr": "127.0.0.1",
                  "status": "UP", "port": {"$": %d, "@enabled": "true"},
                  "dataCenterInfo": {"@class": "com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo",
                                     "name": "MyOwn"},
                  "metadata": {%s}}}""".formatted(id, app, app.toLowerCase(), app.toLowerCase(), port, meta);
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(eureka + "apps/" + app))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
    }

    /** The instance ids chosen over enough calls to see every instance the selection lets through. */
    private static Set<String> chosen(RoutingContext context) {
        return chosen("inventory", context);
    }

    private static Set<String> chosen(String service, RoutingContext context) {
        Set<String> ids = new HashSet<>();
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(context)) {
            for (int i = 0; i < 20; i++) {
                ServiceInstance instance = loadBalancer.choose(service);
                ids.add(instance == null ? "none" : instance.getInstanceId());
            }
        }
        return ids;
    }

    @Test
    void aCnUsersCall_fromEu_goesToCnInstancesOnly() {
        assertThat(chosen(new RoutingContext("u-cn", "cn", "eu", 1, null)))
                .containsExactlyInAnyOrder("inventory-cn-1", "inventory-cn-2");
    }

    @Test
    void noStampNoKey_staysInTheServicesOwnRegion_onTheDefaultVersion() {
        assertThat(chosen(RoutingContext.EMPTY)).containsExactly("inventory-eu-1");
    }

    @Test
    void grayVersion_isHonouredInTheTargetRegion() {
        assertThat(chosen(new RoutingContext("u-eu", "eu", null, 0, "v2"))).containsExactly("inventory-eu-gray");
    }

    @Test
    void homeDown_failsOverInTheCoresOrder_neverToTheDownRegion() {
        state.down("cn");
        assertThat(chosen(new RoutingContext("u-cn", "cn", null, 0, null))).containsExactly("inventory-eu-1");
    }

    @Test
    void theOutgoingRequestsHeaders_decide_whenTheLoadBalancerSeesThem() {
        HttpHeaders headers = new HttpHeaders();
        headers.set("x-unitas-unit", "u-us");
        headers.set("x-unitas-region", "us");
        RequestData data = new RequestData(HttpMethod.POST, URI.create("http://inventory/stock"), headers,
                                           new LinkedMultiValueMap<>(), new HashMap<>());
        ServiceInstance instance = loadBalancer.choose("inventory", new DefaultRequest<>(new RequestDataContext(data)));
        assertThat(instance.getInstanceId()).isEqualTo("inventory-us-1");
        assertThat(instance.getMetadata()).containsEntry("unitas.region", "us");
    }

    @Test
    void aGlobalService_isCalledInTheCenter_whateverTheUsersUnit() {
        assertThat(chosen("accounts", new RoutingContext("u-eu", "eu", null, 0, null)))
                .containsExactly("accounts-cn-1");
    }

    @Test
    void theCallerRegistersItself_withItsRegionAndVersionInTheRegistrysMetadata() {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest get = HttpRequest.newBuilder(URI.create(eurekaUrl + "apps/ORDERS"))
                .header("Accept", "application/json").build();
        await("the caller's own registration").atMost(Duration.ofSeconds(60)).until(() -> {
            HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"unitas.region\":\"eu\"")
                   && r.body().contains("\"unitas.version\":\"v3\"");
        });
    }
}
