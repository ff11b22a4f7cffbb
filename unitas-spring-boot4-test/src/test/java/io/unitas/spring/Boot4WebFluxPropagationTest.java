package io.unitas.spring;

/** The WebFlux propagation contract on Spring Boot 4.0 (this module's class path). */
class Boot4WebFluxPropagationTest extends WebFluxPropagationContract {
}
