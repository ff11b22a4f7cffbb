package io.unitas.spring;

/** The WebFlux propagation contract on Spring Boot 3.5 (the starter's own test class path). */
class WebFluxPropagationTest extends WebFluxPropagationContract {
}
