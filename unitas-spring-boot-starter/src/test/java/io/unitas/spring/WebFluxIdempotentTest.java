package io.unitas.spring;

/** The WebFlux idempotency contract on Spring Boot 3.5 (the starter's own test class path). */
class WebFluxIdempotentTest extends WebFluxIdempotentContract {
}
