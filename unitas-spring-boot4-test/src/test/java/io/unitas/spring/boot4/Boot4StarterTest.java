package io.unitas.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import io.unitas.spring.app.ServiceApp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.context.annotation.Import;

/**
 * What only Spring Boot 4.0 / Spring Cloud 2025.1 checks beside the contracts the starter's tests share
 * ({@code *Contract}, run here by the {@code Boot4*Test} classes): the line itself, and Spring Cloud LoadBalancer
 * picking instances of the unit's region from the simple discovery client's metadata.
 */
@SpringBootTest(classes = ServiceApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(Boot4Clients.class)
class Boot4StarterTest {

    @Autowired
    MutableRoutingState state;

    @Autowired
    LoadBalancerClient loadBalancer;

    @AfterEach
    void reset() {
        state.down(null);
    }

    @Test
    void runsOnSpringBoot4() {
        assertThat(SpringBootVersion.getVersion()).startsWith("4.0.");
    }

    /** The instance ids chosen over enough calls to see every instance the selection lets through. */
    private Set<String> chosen(RoutingContext context) {
        Set<String> ids = new HashSet<>();
        try (RoutingContextHolder.Scope s = RoutingContextHolder.open(context)) {
            for (int i = 0; i < 20; i++) {
                ServiceInstance instance = loadBalancer.choose("inventory");
                ids.add(instance == null ? "none" : instance.getInstanceId());
            }
        }
        return ids;
    }

    @Test
    void loadBalancer_picksInstancesOfTheUnitsRegion() {
        assertThat(chosen(new RoutingContext("u-cn", "cn", "eu", 1, null)))
                .containsExactlyInAnyOrder("inventory-cn-1", "inventory-cn-2");
        assertThat(chosen(new RoutingContext("u-us", "us", null, 0, null))).containsExactly("inventory-us-1");
        assertThat(chosen(RoutingContext.EMPTY)).containsExactly("inventory-eu-1");
        assertThat(chosen(new RoutingContext("u-eu", "eu", null, 0, "v2"))).containsExactly("inventory-eu-gray");
    }

    @Test
    void loadBalancer_homeDown_failsOverNeverToTheDownRegion() {
        state.down("cn");
        assertThat(chosen(new RoutingContext("u-cn", "cn", "eu", 1, null)))
                .doesNotContain("inventory-cn-1", "inventory-cn-2", "none");
    }
}
