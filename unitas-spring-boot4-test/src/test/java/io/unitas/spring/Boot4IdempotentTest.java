package io.unitas.spring;

import io.unitas.spring.app.ServiceApp;
import io.unitas.spring.boot4.Boot4Clients;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/** The idempotency contract on a Servlet service on Spring Boot 4.0 (this module's class path). */
@SpringBootTest(classes = ServiceApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
                properties = {IdempotentContract.PATHS, IdempotentContract.RETRY_AFTER})
@Import(Boot4Clients.class)
class Boot4IdempotentTest extends IdempotentContract {
}
