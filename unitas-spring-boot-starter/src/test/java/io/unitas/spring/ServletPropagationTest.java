package io.unitas.spring;

import io.unitas.spring.boot3.Boot3Clients;
import org.springframework.context.annotation.Import;

/** The Servlet propagation contract on Spring Boot 3.5 (the starter's own test class path). */
@Import(Boot3Clients.class)
class ServletPropagationTest extends ServletPropagationContract {
}
