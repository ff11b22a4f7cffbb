package io.unitas.spring;

import io.unitas.spring.reactive.ReactiveApp;
import org.springframework.boot.test.context.SpringBootTest;

/** {@link WriteGuardContract} on a WebFlux service. */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = "spring.main.web-application-type=reactive")
class WebFluxWriteGuardTest extends WriteGuardContract {

    @Override
    String callPath() {
        return "/call";
    }
}
