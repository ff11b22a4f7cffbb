package io.unitas.spring;

import io.unitas.spring.boot4.Boot4Clients;
import org.springframework.context.annotation.Import;

/** The Servlet propagation contract on Spring Boot 4.0 (this module's class path). */
@Import(Boot4Clients.class)
class Boot4ServletPropagationTest extends ServletPropagationContract {
}
