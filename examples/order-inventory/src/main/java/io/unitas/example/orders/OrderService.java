package io.unitas.example.orders;

import io.unitas.example.CallRecording;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.boot.autoconfigure.web.client.RestClientBuilderConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.client.RestClient;

/**
 * The order service: {@code POST /orders} reserves the items in the {@code inventory} service, from an {@code @Async}
 * method, through a load-balanced {@code RestClient}. Which inventory instance answers is the starter's choice: one in
 * the region the order's unit is routed to.
 */
@SpringBootApplication
@EnableAsync
@Import(CallRecording.class)
public class OrderService {

    /**
     * Boot's {@code RestClient.Builder} (with the starter's interceptor, through Boot's configurer), load-balanced:
     * {@code http://inventory/...} goes to an instance Spring Cloud LoadBalancer picks.
     */
    @Bean
    @LoadBalanced
    RestClient.Builder loadBalancedRestClient(RestClientBuilderConfigurer configurer) {
        return configurer.configure(RestClient.builder());
    }

    public static void main(String[] args) {
        SpringApplication.run(OrderService.class, args);
    }
}
