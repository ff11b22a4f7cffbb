package io.unitas.example.inventory;

import io.unitas.client.RoutingContextHolder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Reservations, counted per SKU in memory (the example is about where calls go, not about stock). */
@RestController
class InventoryController {

    private final Map<String, AtomicLong> reserved = new ConcurrentHashMap<>();
    private final String region;
    private final String instance;

    InventoryController(@Value("${unitas.region}") String region,
                        @Value("${example.instance:${spring.application.name}-${unitas.region}}") String instance) {
        this.region = region;
        this.instance = instance;
    }

    @PostMapping("/inventory/{sku}/reservations")
    Map<String, Object> reserve(@PathVariable String sku, @RequestParam(defaultValue = "1") int quantity) {
        long total = reserved.computeIfAbsent(sku, k -> new AtomicLong()).addAndGet(quantity);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sku", sku);
        m.put("reserved", total);
        m.put("region", region);
        m.put("instance", instance);
        m.put("unit", RoutingContextHolder.current().unit());
        return m;
    }
}
