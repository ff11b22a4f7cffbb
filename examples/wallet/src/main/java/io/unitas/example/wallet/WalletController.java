package io.unitas.example.wallet;

import io.unitas.data.DataReadiness;
import io.unitas.data.ReadinessResult;
import io.unitas.spring.Idempotent;
import io.unitas.spring.UnitasEntity;
import io.unitas.spring.UnitasReadiness;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /wallets/{userId}/deposits} {@code {"amount": 5}} with an {@code Idempotency-Key}: charged once per
 * key, owned by the user, whichever region serves it. {@code GET /wallets/{userId}}: the wallet, from this region's
 * database when it is here, else from the user's home region; {@code from} says which.
 */
@RestController
class WalletController {

    private final Wallets wallets;
    private final Receipts receipts;
    private final DataReadiness<String, Wallet> reads;
    private final String region;

    WalletController(Wallets wallets, Receipts receipts, UnitasReadiness readiness, UnitasEntity<Wallet> wallet,
                     @Value("${unitas.region}") String region) {
        this.wallets = wallets;
        this.receipts = receipts;
        this.reads = readiness.entity(wallet).build();
        this.region = region;
    }

    record Deposit(Long amount) {}

    @Idempotent(owner = "{userId}")
    @PostMapping("/wallets/{userId}/deposits")
    ResponseEntity<?> deposit(@PathVariable String userId, @RequestBody Deposit deposit,
                              @RequestHeader(value = "Idempotency-Key", required = false) String key)
            throws InterruptedException {
        if (deposit.amount() == null || deposit.amount() <= 0) {
            return ResponseEntity.badRequest().body(ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                    "amount: " + deposit.amount() + " (expected: a whole number > 0)"));
        }
        Wallet w = wallets.deposit(userId, deposit.amount(), key);
        Map<String, Object> receipt;
        try {
            receipt = receipts.issue(w).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            receipt = Map.of("error", String.valueOf(e.getMessage()));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", userId);
        body.put("balance", w.balance());
        body.put("version", w.version());
        body.put("region", region);
        body.put("receipt", receipt);
        return ResponseEntity.created(URI.create("/wallets/" + userId)).body(body);
    }

    @GetMapping("/wallets/{userId}")
    ResponseEntity<Map<String, Object>> wallet(@PathVariable String userId) {
        ReadinessResult<Wallet> read = reads.read(userId);
        return UnitasReadiness.orNotReady(read).map(w -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("user", userId);
            body.put("balance", w.balance());
            body.put("version", w.version());
            body.put("region", region);
            body.put("from", read.outcome().name().toLowerCase(java.util.Locale.ROOT));
            return ResponseEntity.ok(body);
        }).orElseGet(() -> ResponseEntity.notFound().build());
    }
}
