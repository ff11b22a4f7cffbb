package io.unitas.example.wallet;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Service;

/**
 * Issues a deposit's receipt on Boot's task executor ({@code @Async}), as a service hands slow side work to a pool:
 * the receipt says which unit the routing context on that thread names, so a caller sees the stamp went along.
 */
@Service
public class Receipts {

    /** The receipt for {@code wallet}: its unit as the pool thread sees it, and that thread's name. */
    @Async
    public CompletableFuture<Map<String, Object>> issue(Wallet wallet) {
        RoutingContext c = RoutingContextHolder.current();
        Map<String, Object> receipt = new LinkedHashMap<>();
        receipt.put("user", wallet.userId());
        receipt.put("version", wallet.version());
        receipt.put("unit", c.unit() == null ? "none" : c.unit());
        receipt.put("thread", Thread.currentThread().getName());
        return CompletableFuture.completedFuture(receipt);
    }
}
