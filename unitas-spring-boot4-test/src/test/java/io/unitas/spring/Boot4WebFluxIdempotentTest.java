package io.unitas.spring;

/** The WebFlux idempotency contract on Spring Boot 4.0 (this module's class path). */
class Boot4WebFluxIdempotentTest extends WebFluxIdempotentContract {
}
