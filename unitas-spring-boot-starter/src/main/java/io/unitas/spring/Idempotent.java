package io.unitas.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a controller method at most once per {@code Idempotency-Key}: the record is kept in the store of the user's
 * home unit whatever region serves the call, a retry gets the stored response, the same key with another request is
 * 422, a duplicate while the first still runs is 409, and a home store that cannot take a new key is 503. Paths in
 * {@code unitas.idempotency.paths} are treated the same without the annotation.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {
}
