package io.unitas.spring.boot4;

import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestTemplate;

/** What the shared service applications need that only Spring Boot 4's packages name: a built RestTemplate. */
@TestConfiguration(proxyBeanMethods = false)
public class Boot4Clients {

    @Bean
    RestTemplate restTemplate(RestTemplateBuilder builder) {
        return builder.build();
    }
}
