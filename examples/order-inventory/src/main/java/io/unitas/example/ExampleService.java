package io.unitas.example;

import io.unitas.example.inventory.InventoryService;
import io.unitas.example.orders.OrderService;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One service of the example, started in this process with its {@code application.yaml} and the given properties
 * on top (its region, the unitas files or control plane, the registry's instances): several run side by side, one
 * Spring context each, as the playground runs a pair per region.
 */
public final class ExampleService implements AutoCloseable {

    /** Which of the two services. */
    public enum Kind {
        ORDER("order", OrderService.class),
        INVENTORY("inventory", InventoryService.class);

        private final String serviceId;
        private final Class<?> application;

        Kind(String serviceId, Class<?> application) {
            this.serviceId = serviceId;
            this.application = application;
        }

        /** The service's id in the registry and its {@code spring.application.name}. */
        public String serviceId() {
            return serviceId;
        }
    }

    private final Kind kind;
    private final ConfigurableApplicationContext context;

    private ExampleService(Kind kind, ConfigurableApplicationContext context) {
        this.kind = kind;
        this.context = context;
    }

    /**
     * Starts {@code kind} with {@code properties} (Spring property names, e.g. {@code unitas.region},
     * {@code server.port}); returns once it listens. Spring Boot does not configure logging here: the process's
     * own (SLF4J to java.util.logging) stays as it is.
     */
    public static ExampleService start(Kind kind, Map<String, String> properties) {
        Objects.requireNonNull(kind, "kind");
        if (System.getProperty("org.springframework.boot.logging.LoggingSystem") == null) {
            System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        }
        Map<String, Object> props = new LinkedHashMap<>(properties);
        props.putIfAbsent("spring.application.name", kind.serviceId);
        String[] args = props.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue())
                             .toArray(String[]::new);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(kind.application)
                .bannerMode(Banner.Mode.OFF).logStartupInfo(false).registerShutdownHook(false)
                .web(WebApplicationType.SERVLET).run(args);
        return new ExampleService(kind, context);
    }

    /** Which service this is. */
    public Kind kind() {
        return kind;
    }

    /** The port it listens on. */
    public int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    /** The calls it served. */
    public CallLog calls() {
        return context.getBean(CallLog.class);
    }

    /** Stops it. */
    @Override
    public void close() {
        context.close();
    }
}
