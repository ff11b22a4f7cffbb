package io.unitas.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a controller method at most once per idempotency key and owner: the record is owned by the request's routing
 * key value (the user, or the path variable {@link #owner} names) and kept in the store of that owner's home unit,
 * whatever region serves the call. A retry gets the stored response (status, body, {@code Content-Type} and the
 * headers in {@code unitas.idempotency.replayed-headers}) with {@code Idempotent-Replayed: true}; the same key from
 * another owner or with another request is 422, a duplicate while the first still runs is 409, and a home store that
 * cannot take a new key is 503. Paths in {@code unitas.idempotency.paths} are treated the same without the
 * annotation, with the defaults.
 *
 * <pre>{@code
 * @Idempotent(owner = "{userId}", retention = "48h")
 * @PostMapping("/wallets/{userId}/deposits")
 * Wallet deposit(@PathVariable String userId, @RequestBody Deposit deposit) { ... }
 * }</pre>
 *
 * <p>The starter refuses to start when an annotated method cannot be served (no store for this region's records,
 * {@code unitas.idempotency.enabled: false}, an owner that is no path variable of the mapping, a retention that is no
 * duration), naming the property or the method.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {

    /** The request header carrying the key; empty for {@code unitas.idempotency.header} ({@code Idempotency-Key}). */
    String header() default "";

    /**
     * How long the record counts, as Spring Boot writes durations ({@code 48h}, {@code 30m}, {@code PT2H}); empty for
     * {@code unitas.idempotency.ttl} (24h).
     */
    String retention() default "";

    /**
     * Whose request it is: {@code "{name}"}, a path variable of the mapping whose value is a key of the unit rules
     * (a user id); empty for the request's own routing key (the rules' key sources, e.g. the {@code x-user-id}
     * header).
     */
    String owner() default "";
}
