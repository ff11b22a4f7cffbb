package io.unitas.spring.boot3;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.client.RestTemplateBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestTemplate;

/** What the shared service applications need that only Spring Boot 3's packages name: a built RestTemplate. */
@TestConfiguration(proxyBeanMethods = false)
public class Boot3Clients {

    @Bean
    RestTemplate restTemplate(RestTemplateBuilder builder) {
        return builder.build();
    }
}
