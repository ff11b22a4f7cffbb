package io.unitas.spring.forward;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A deposit service, Servlet, one instance per region (its region by {@code unitas.region}): a deposit answers 201
 * with a {@code Location}, a header of its own and a body saying which region served it, the body and query it got,
 * and the stamp and forwarding marker it arrived with.
 */
@SpringBootApplication
public class ForwardApp {

    /** Deposits this instance's handler ran. */
    public static final Map<String, AtomicInteger> DEPOSITS = new java.util.concurrent.ConcurrentHashMap<>();

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    @RestController
    static class Deposits {
        @PostMapping("/wallets/{userId}/deposits")
        ResponseEntity<Map<String, Object>> deposit(@PathVariable String userId, @RequestBody String body,
                                                    @RequestParam(required = false) String note,
                                                    @RequestHeader Map<String, String> headers) {
            RoutingContext c = RoutingContextHolder.current();
            DEPOSITS.computeIfAbsent(c.region(), r -> new AtomicInteger()).incrementAndGet();
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("user", userId);
            answer.put("servedIn", c.region());
            answer.put("unit", c.unit());
            answer.put("body", body);
            answer.put("note", note);
            answer.put("stampUnit", headers.get("x-unitas-unit"));
            answer.put("forwardedBy", headers.get("x-unitas-forwarded-by"));
            return ResponseEntity.created(URI.create("/wallets/" + userId + "/deposits/1"))
                                 .header("X-Deposit-Served-In", c.region()).body(answer);
        }
    }
}
