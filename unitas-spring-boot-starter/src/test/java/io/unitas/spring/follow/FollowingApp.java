package io.unitas.spring.follow;

import java.util.Map;

import io.unitas.client.RoutingContextHolder;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** A service with only the starter and its own routing state source from {@code application.yaml}. */
@SpringBootApplication
public class FollowingApp {

    @RestController
    static class Orders {
        @PostMapping("/orders")
        Map<String, String> order() {
            return Map.of("unit", String.valueOf(RoutingContextHolder.current().unit()));
        }
    }
}
