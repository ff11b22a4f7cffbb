package io.unitas.example.orders;

import io.unitas.example.CallRecording;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

/** Calls the inventory service by its service id; the reservation runs on Boot's task executor. */
@Service
public class InventoryClient {

    private static final ParameterizedTypeReference<Map<String, Object>> JSON = new ParameterizedTypeReference<>() {};

    private final RestClient inventory;

    InventoryClient(RestClient.Builder loadBalanced) {
        this.inventory = loadBalanced.baseUrl("http://inventory").build();
    }

    /** Reserves {@code quantity} of {@code sku}; the answer names the inventory instance and its region. */
    @Async
    public CompletableFuture<Map<String, Object>> reserve(String sku, int quantity) {
        Map<String, Object> answer = inventory.post().uri("/inventory/{sku}/reservations?quantity={q}", sku, quantity)
                                              .header(CallRecording.THREAD_HEADER, Thread.currentThread().getName())
                                              .retrieve().body(JSON);
        return CompletableFuture.completedFuture(answer);
    }
}
