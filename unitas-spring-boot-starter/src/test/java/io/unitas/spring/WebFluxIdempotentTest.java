package io.unitas.spring;

import io.unitas.spring.reactivedata.ReactiveDataApp;
import org.springframework.boot.test.context.SpringBootTest;

/** The idempotency contract on a WebFlux service on Spring Boot 3.5 (the starter's own test class path). */
@SpringBootTest(classes = ReactiveDataApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {"spring.main.web-application-type=reactive", IdempotentContract.PATHS,
                              IdempotentContract.RETRY_AFTER})
class WebFluxIdempotentTest extends IdempotentContract {
}
