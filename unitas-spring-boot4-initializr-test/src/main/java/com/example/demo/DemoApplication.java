package com.example.demo;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import io.unitas.spring.UnitasEntity;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The application Spring Initializr generates, with one entity the other regions may read from this one: enough for
 * the starter to run its home-read server (Armeria, on Netty) and client at start.
 */
@SpringBootApplication
public class DemoApplication {

    public static void main(String[] args) {
        SpringApplication.run(DemoApplication.class, args);
    }

    /** A greeting per user, read locally and served to the other regions. */
    @Bean
    UnitasEntity<String> greetings() {
        return UnitasEntity.<String>builder("greeting", key -> Optional.of("hello " + key))
                .codec(s -> s.getBytes(StandardCharsets.UTF_8), b -> new String(b, StandardCharsets.UTF_8))
                .version(s -> 1L)
                .build();
    }
}
