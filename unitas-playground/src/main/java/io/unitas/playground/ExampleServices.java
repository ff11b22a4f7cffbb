package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.example.ExampleService;
import io.unitas.example.ExampleService.Kind;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The example service pair ({@code examples/order-inventory}) in every region, in this process: per region one order
 * and one inventory instance, each a Spring context of its own on the region's eighth and ninth ports. The registry is
 * Spring Cloud's simple discovery, filled from the layout: every order instance lists every region's inventory
 * instance with its {@code unitas.region}, as a registry replicated between regions would. The services follow the
 * control plane's state as the gateways do (a viewer's token), so fences, health and moved units reach them too.
 */
final class ExampleServices implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExampleServices.class);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final Layout layout;
    private final Path workDir;
    private final Path topology;
    private final Path rules;
    private final String control;
    private final WrongRegionCounter counter = new WrongRegionCounter();
    private final Map<Region, List<ExampleService>> running = new LinkedHashMap<>();

    /**
     * @param topology the topology file the services read at start (the control plane's state replaces it)
     * @param rules    the unit rules file
     * @param control  the control plane's URL; its viewer token is {@code workDir/viewer.token}
     */
    ExampleServices(Layout layout, Path workDir, Path topology, Path rules, String control) {
        this.layout = layout;
        this.workDir = workDir;
        this.topology = topology;
        this.rules = rules;
        this.control = control;
    }

    /** The route from a region's shops to its order service. */
    ExampleProxy proxy(Region region) {
        return new ExampleProxy(layout.exampleOrderPort(region));
    }

    /** Starts the region's order and inventory instances side by side; returns once both listen. */
    void start(Region region) {
        CompletableFuture<ExampleService> inventory = CompletableFuture.supplyAsync(
                () -> ExampleService.start(Kind.INVENTORY, properties(region, Kind.INVENTORY)));
        CompletableFuture<ExampleService> order = CompletableFuture.supplyAsync(
                () -> ExampleService.start(Kind.ORDER, properties(region, Kind.ORDER)));
        List<ExampleService> started;
        try {
            CompletableFuture.allOf(inventory, order).join();
            started = List.of(order.join(), inventory.join());
        } catch (RuntimeException e) {
            List.of(inventory, order).forEach(f -> f.thenAccept(ExampleService::close));
            throw new IllegalStateException("example services of " + region + " did not start: "
                                            + rootMessage(e), e);
        }
        started.forEach(s -> s.calls().listen(counter));
        synchronized (running) {
            running.put(region, started);
        }
        warmUp(region);
    }

    /**
     * Empty when an order of a user of each running region, entering at that region's gateway, is served (201);
     * else what answered otherwise. The services follow the control plane's state on their own (the starter's
     * watch), so they may see a region able to serve a moment after the gateways do.
     */
    String notYetServing(Function<Region, URI> gateway) {
        List<Region> regions;
        synchronized (running) {
            regions = List.copyOf(running.keySet());
        }
        for (Region home : regions) {
            HttpRequest req = order(gateway.apply(home).resolve(ExampleProxy.PREFIX + "/orders"), "ready")
                    .timeout(Duration.ofSeconds(10)).header("x-user-id", layout.userId(home, 0)).build();
            try {
                HttpResponse<String> res = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() != 201) {
                    return "example services of " + home + " answer an order with " + res.statusCode() + " "
                           + res.body();
                }
            } catch (IOException e) {
                return "example services of " + home + ": " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }
        return "";
    }

    /**
     * One order without a unit (it stays in the region), straight to the order instance: the first call through a
     * Spring service builds its load balancer, message converters and client, which on a loaded machine takes longer
     * than a gateway waits for an answer.
     */
    private void warmUp(Region region) {
        HttpRequest req = order(URI.create("http://127.0.0.1:" + layout.exampleOrderPort(region) + "/orders"),
                                "warm-up").timeout(Duration.ofSeconds(60)).build();
        try {
            // Any answer will do: before the regions' first health reports reach the control plane, the services
            // see no region able to serve and answer 503, having built what the first call builds all the same.
            HTTP.send(req, HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            LOG.warn("example: the warm-up order in {} failed: {}", region, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An order of one {@code sku} posted to {@code orders}. */
    private static HttpRequest.Builder order(URI orders, String sku) {
        return HttpRequest.newBuilder(orders).header("content-type", "application/json")
                          .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"" + sku + "\"}"));
    }

    /** Stops the region's instances, as a region that dies loses them. */
    void stop(Region region) {
        List<ExampleService> services;
        synchronized (running) {
            services = running.remove(region);
        }
        if (services != null) {
            closeAll(services);
        }
    }

    /** Closes side by side: a Spring context's web server may take seconds to let go of its threads. */
    private static void closeAll(List<ExampleService> services) {
        CompletableFuture.allOf(services.stream().map(s -> CompletableFuture.runAsync(s::close))
                                        .toArray(CompletableFuture[]::new)).join();
    }

    /** The calls served so far, over every instance and restart. */
    ExampleCalls counts() {
        return counter.counts();
    }

    WrongRegionCounter counter() {
        return counter;
    }

    private Map<String, String> properties(Region region, Kind kind) {
        String instance = kind.serviceId() + "-" + region.id();
        Map<Region, List<Integer>> inventories = new LinkedHashMap<>();
        layout.regions().forEach(r -> inventories.put(r, List.of(layout.exampleInventoryPort(r))));
        return properties(kind, region, instance, kind == Kind.ORDER ? layout.exampleOrderPort(region)
                                                                     : layout.exampleInventoryPort(region),
                          inventories, topology, rules, control, workDir.resolve("viewer.token"),
                          workDir.resolve("example-" + instance + ".state.json"));
    }

    /**
     * What an instance of the example starts with, in this process or as a process of its own: its port and name, its
     * region, the unitas files, the control plane it follows with a viewer's {@code token}, and for an order instance
     * the registry, every region's inventory instances with their region ({@code inventories}, ports by region).
     */
    static Map<String, String> properties(Kind kind, Region region, String instance, int port,
                                          Map<Region, List<Integer>> inventories, Path topology, Path rules,
                                          String control, Path token, Path state) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("server.port", Integer.toString(port));
        p.put("example.instance", instance);
        p.put("unitas.region", region.id());
        p.put("unitas.topology", "file:" + topology);
        p.put("unitas.rules", "file:" + rules);
        p.put("unitas.control-plane.url", control);
        p.put("unitas.control-plane.token-file", token.toString());
        p.put("unitas.control-plane.state-file", state.toString());
        if (kind == Kind.ORDER) {
            int i = 0;
            for (Map.Entry<Region, List<Integer>> e : inventories.entrySet()) {
                List<Integer> ports = e.getValue();
                for (int j = 0; j < ports.size(); j++) {
                    String prefix = "spring.cloud.discovery.client.simple.instances.inventory[" + i++ + "].";
                    p.put(prefix + "uri", "http://127.0.0.1:" + ports.get(j));
                    p.put(prefix + "instance-id", "inventory-" + e.getKey().id()
                                                  + (ports.size() > 1 ? "-" + (char) ('a' + j) : ""));
                    p.put(prefix + "metadata[unitas.region]", e.getKey().id());
                }
            }
        }
        return p;
    }

    @Override
    public void close() {
        List<ExampleService> all = new ArrayList<>();
        synchronized (running) {
            running.values().forEach(all::addAll);
            running.clear();
        }
        closeAll(all);
    }

    /** The innermost message of a start failure (a port taken, a bad property), for one line. */
    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return String.valueOf(t.getMessage());
    }
}
