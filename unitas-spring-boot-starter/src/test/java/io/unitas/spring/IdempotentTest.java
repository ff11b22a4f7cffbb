package io.unitas.spring;

import io.unitas.spring.app.ServiceApp;
import io.unitas.spring.boot3.Boot3Clients;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/** The idempotency contract on a Servlet service on Spring Boot 3.5 (the starter's own test class path). */
@SpringBootTest(classes = ServiceApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {IdempotentContract.PATHS, IdempotentContract.RETRY_AFTER})
@Import(Boot3Clients.class)
class IdempotentTest extends IdempotentContract {
}
