package io.unitas.spring;

import io.unitas.spring.app.ServiceApp;
import org.springframework.boot.test.context.SpringBootTest;

/** {@link WriteGuardContract} on a Servlet service. */
@SpringBootTest(classes = ServiceApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServletWriteGuardTest extends WriteGuardContract {

    @Override
    String callPath() {
        return "/call/restclient";
    }
}
