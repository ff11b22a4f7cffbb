package bench;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * The small Spring MVC service of benchmarks/spring/ab.sh: {@code GET /order} makes one load-balanced call to the
 * {@code inventory} service (Spring Cloud LoadBalancer over the simple discovery client) and answers with its body.
 * The same class runs with the starter ({@code unitas.enabled=true}) and without it ({@code unitas.enabled=false}:
 * none of its beans exist), so the difference is the starter's work per request: the stamp read, the fence, the
 * metric tags, the context out on the call and the unit-aware instance selection.
 */
@SpringBootApplication
public class BenchService {

    public static void main(String[] args) {
        SpringApplication.run(BenchService.class, args);
    }

    @Bean
    @LoadBalanced
    RestClient.Builder loadBalanced() {
        return RestClient.builder();
    }

    @RestController
    static class Orders {
        private final RestClient inventory;

        Orders(@LoadBalanced RestClient.Builder builder) {
            this.inventory = builder.baseUrl("http://inventory").build();
        }

        @GetMapping("/order")
        String order() {
            return inventory.get().uri("/").retrieve().body(String.class);
        }
    }
}
