package io.unitas.spring.registry;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.netflix.eureka.server.EnableEurekaServer;

/** A real Eureka server, started by the test on a free port. */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableEurekaServer
public class RegistryApp {
}
