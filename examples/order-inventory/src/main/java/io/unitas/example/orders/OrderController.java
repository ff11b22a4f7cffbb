package io.unitas.example.orders;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders} {@code {"sku": "book", "quantity": 1}}: an order, its stock reserved in the inventory service. */
@RestController
class OrderController {

    private final InventoryClient inventory;
    private final String region;

    OrderController(InventoryClient inventory, @Value("${unitas.region}") String region) {
        this.inventory = inventory;
        this.region = region;
    }

    record OrderRequest(String sku, Integer quantity) {}

    @PostMapping("/orders")
    ResponseEntity<?> order(@RequestBody OrderRequest request) throws InterruptedException {
        String sku = request.sku() == null ? "book" : request.sku();
        int quantity = request.quantity() == null ? 1 : request.quantity();
        Map<String, Object> reservation;
        try {
            reservation = inventory.reserve(sku, quantity).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | CompletionException | TimeoutException e) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                    "inventory: " + (e.getCause() == null ? e : e.getCause()).getMessage());
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(problem);
        }
        RoutingContext c = RoutingContextHolder.current();
        Map<String, Object> order = new LinkedHashMap<>();
        order.put("order", UUID.randomUUID().toString());
        order.put("unit", c.unit());
        order.put("region", region);
        order.put("inventory", reservation);
        return ResponseEntity.status(HttpStatus.CREATED).body(order);
    }
}
