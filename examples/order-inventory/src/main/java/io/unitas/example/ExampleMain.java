package io.unitas.example;

import io.unitas.example.ExampleService.Kind;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One service of the example as a process of its own: {@code ExampleMain order|inventory --name=value ...}, the
 * properties as {@link ExampleService#start} takes them (the process deployment passes
 * {@code --spring.config.additional-location=file:deploy/<region>/order-a.properties}). It runs until the JVM is
 * told to stop ({@code SIGTERM}), which closes the service.
 */
public final class ExampleMain {

    private ExampleMain() {}

    public static void main(String[] args) {
        Kind kind = args.length == 0 ? null : kind(args[0]);
        if (kind == null) {
            System.err.println("example: " + (args.length == 0 ? "no service" : "'" + args[0] + "'")
                               + " (expected: order or inventory, then --name=value properties)");
            System.exit(2);
        }
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (!args[i].startsWith("--") || eq < 3) {
                System.err.println("example: argument " + i + ": '" + args[i] + "' (expected: --name=value)");
                System.exit(2);
            }
            properties.put(args[i].substring(2, eq), args[i].substring(eq + 1));
        }
        ExampleService service;
        try {
            service = ExampleService.start(kind, properties);
        } catch (RuntimeException e) {
            Throwable t = e;
            while (t.getCause() != null) {
                t = t.getCause();
            }
            System.err.println("example: " + kind.serviceId() + " did not start: " + t.getMessage());
            System.exit(1);
            return;
        }
        // the service starts without Spring's shutdown hook (several share a JVM elsewhere): this process owns it
        Runtime.getRuntime().addShutdownHook(new Thread(service::close, "example-stop"));
    }

    private static Kind kind(String name) {
        for (Kind k : Kind.values()) {
            if (k.serviceId().equals(name.toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        return null;
    }
}
