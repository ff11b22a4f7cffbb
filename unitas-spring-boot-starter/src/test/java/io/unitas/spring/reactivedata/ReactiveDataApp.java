package io.unitas.spring.reactivedata;

import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.PaymentLedger;
import io.unitas.spring.Idempotent;
import io.unitas.spring.app.MutableRoutingState;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** A WebFlux service with the starter and the data layer: {@link Idempotent} payments, reactive handlers. */
@SpringBootApplication
public class ReactiveDataApp {

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    /** The application's own database in eu, which keeps eu's users' idempotency records. */
    @Bean
    DataSource ordersDb() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:reactive-orders-eu-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    /** Payments, each made at most once per Idempotency-Key; a test holds one open to see a duplicate in flight. */
    @RestController
    public static class Payments extends PaymentLedger {

        @Idempotent
        @PostMapping("/payments")
        Mono<Map<String, Object>> pay(@RequestBody Mono<Map<String, Object>> payment) {
            return payment.publishOn(Schedulers.boundedElastic()).map(p -> {
                entered.incrementAndGet();
                try {
                    hold.get().await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                return Map.of("payment", made.incrementAndGet(), "amount", p.get("amount"),
                              "unit", String.valueOf(RoutingContextHolder.current().unit()));
            });
        }

        /** A payment answered 201 with headers a replay must carry too, and one it must not. */
        @Idempotent
        @PostMapping("/payments/created")
        Mono<ResponseEntity<Map<String, Object>>> payCreated(@RequestBody Mono<Map<String, Object>> payment) {
            return payment.map(p -> {
                int id = made.incrementAndGet();
                return ResponseEntity.created(java.net.URI.create("/payments/" + id)).eTag("\"v1\"")
                                     .header("X-Internal-Trace", "t-" + id)
                                     .body(Map.of("payment", id, "amount", p.get("amount")));
            });
        }

        /** A deposit owned by the path's user, not by the routing header's. */
        @Idempotent(owner = "{userId}")
        @PostMapping("/wallets/{userId}/deposits")
        Mono<Map<String, Object>> deposit(@PathVariable String userId, @RequestBody Mono<Map<String, Object>> deposit) {
            return deposit.map(d -> Map.of("user", userId, "payment", made.incrementAndGet()));
        }

        /** Idempotent by {@code unitas.idempotency.paths}, not by annotation. */
        @PostMapping("/transfers/{id}")
        Mono<Map<String, Object>> transfer(@PathVariable String id) {
            return Mono.fromSupplier(() -> Map.of("transfer", id, "payment", made.incrementAndGet()));
        }
    }
}
