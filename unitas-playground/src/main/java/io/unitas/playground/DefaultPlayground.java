package io.unitas.playground;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlResponse;
import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.core.Region;
import io.unitas.core.rules.UnitRules;
import io.unitas.data.replication.Replicator;
import io.unitas.data.store.RegionalStore;
import io.unitas.data.store.StoreDirectory;
import io.unitas.data.store.StoreMode;
import io.unitas.gateway.Gateway;
import io.unitas.gateway.GatewayConfig;
import io.unitas.health.HealthConfig;
import io.unitas.health.HealthServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The in-process playground. The gateways and health agents read the same YAML files their commands read, written
 * into the work directory, so what runs here is what {@code unitas gateway} and {@code unitas health serve} run.
 */
final class DefaultPlayground implements Playground {

    private final Layout layout;
    private final ShopMode mode;
    private final Path workDir;
    private final boolean ownWorkDir;
    private final Clock clock = Clock.systemUTC();
    private final ControlToken admin = ControlToken.generate("admin", Role.ADMIN);
    private final ControlToken reporter = ControlToken.generate("health-agents", Role.REPORTER);
    private final ControlToken viewer = ControlToken.generate("gateways", Role.VIEWER);
    private final Map<Region, RegionalStore> stores = new LinkedHashMap<>();
    private final Map<Region, RegionProcesses> running = new LinkedHashMap<>();
    private final StoreDirectory directory;
    private final UnitRules rules;
    private final Replicator replicator;
    private ControlServer control;

    /** What one region runs besides its store. */
    private record RegionProcesses(List<Shop> shops, HealthServer health, Gateway gateway) {
        /** Closes the gateway first (no new requests), then the rest side by side: each waits out its drain. */
        void close() {
            gateway.close();
            Stream<AutoCloseable> rest = Stream.concat(Stream.of(health), shops.stream());
            CompletableFuture.allOf(rest.map(c -> CompletableFuture.runAsync(() -> closeQuietly(c)))
                                        .toArray(CompletableFuture[]::new)).join();
        }
    }

    private DefaultPlayground(Playground.Builder b, Layout layout) throws IOException {
        this.layout = layout;
        this.mode = b.mode;
        this.ownWorkDir = b.workDir == null;
        this.workDir = ownWorkDir ? Files.createTempDirectory("unitas-playground") : b.workDir;
        Files.createDirectories(workDir);
        Files.writeString(workDir.resolve("tokens"), String.join("\n", admin.fileLine(), reporter.fileLine(),
                                                                  viewer.fileLine()) + "\n");
        Files.writeString(workDir.resolve("reporter.token"), reporter.secret());
        Files.writeString(workDir.resolve("viewer.token"), viewer.secret());
        for (Region r : layout.regions()) {
            stores.put(r, RegionalStore.embedded(r, clock));
        }
        this.directory = StoreDirectory.of(stores.values().toArray(RegionalStore[]::new));
        this.rules = layout.rules();
        this.replicator = Replicator.builder().stores(stores.values().toArray(RegionalStore[]::new)).clock(clock)
                                    .delay(b.replicationDelay).pollInterval(Duration.ofMillis(10)).build();
    }

    static Playground start(Playground.Builder b, Layout layout) {
        DefaultPlayground p;
        try {
            p = new DefaultPlayground(b, layout);
        } catch (IOException e) {
            throw new UncheckedIOException("playground: cannot prepare the work directory", e);
        }
        try {
            p.replicator.start();
            p.startControlPlane();
            p.seedControlPlane();
            for (Region r : layout.regions()) {
                p.startRegion(r);
            }
            return p;
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
    }

    private void seedControlPlane() {
        ControlClient client = ControlClient.of(control(), admin.secret());
        expectOk(client.put("/api/v1/topology", layout.topologyJson(), client.get("/api/v1/state").revision()));
        expectOk(client.put("/api/v1/rules", layout.rulesJson(), client.get("/api/v1/state").revision()));
    }

    private static void expectOk(ControlResponse res) {
        if (res.status() != 200) {
            throw new IllegalStateException("control plane refused the playground's model: " + res.body());
        }
    }

    @Override
    public synchronized void startControlPlane() {
        if (control != null) {
            return;
        }
        control = ControlServer.builder().port(layout.controlPort()).dataDir(workDir.resolve("control"))
                               .tokens(workDir.resolve("tokens"))
                               .healthFreshness(Duration.ofSeconds(2), Duration.ofSeconds(1)).start();
    }

    @Override
    public synchronized void stopControlPlane() {
        if (control != null) {
            control.close();
            control = null;
        }
    }

    @Override
    public synchronized void startRegion(Region region) {
        if (running.containsKey(region)) {
            return;
        }
        stores.get(region).mode(StoreMode.READ_WRITE);
        List<Shop> shops = new ArrayList<>();
        List<Integer> ports = layout.shopPorts(region);
        for (int i = 0; i < ports.size(); i++) {
            shops.add(Shop.builder().region(region).stores(directory).rules(rules).mode(mode)
                          .instance(region.id() + "-" + (char) ('a' + i)).port(ports.get(i)).clock(clock).start());
        }
        try {
            HealthServer health = HealthServer.start(HealthConfig.read(write("health-" + region.id() + ".yaml",
                                                                             healthYaml(region))), clock);
            Gateway gateway = Gateway.start(GatewayConfig.read(write("gateway-" + region.id() + ".yaml",
                                                                     gatewayYaml(region))));
            running.put(region, new RegionProcesses(shops, health, gateway));
        } catch (RuntimeException e) {
            shops.forEach(Shop::close);
            throw e;
        }
    }

    @Override
    public synchronized void stopRegion(Region region) {
        RegionProcesses p = running.remove(region);
        if (p != null) {
            p.close();
        }
        stores.get(region).mode(StoreMode.UNAVAILABLE);
    }

    /** The region's health: its store must take writes (a check through each shop; one answering is enough). */
    private String healthYaml(Region r) {
        List<Integer> shops = layout.shopPorts(r);
        StringBuilder y = new StringBuilder();
        y.append("region: ").append(r.id()).append('\n')
         .append("listen: {address: 127.0.0.1, http: ").append(layout.healthPort(r))
         .append(", grpc: ").append(layout.healthGrpcPort(r)).append("}\n")
         .append("defaults: {interval: 500ms, timeout: 1s, fall: 2, rise: 2}\n")
         .append("checks:\n");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < shops.size(); i++) {
            String name = "store-via-" + r.id() + "-" + (char) ('a' + i);
            names.add(name);
            y.append("  - {name: ").append(name).append(", kind: http, gate: none, target: 'http://127.0.0.1:")
             .append(shops.get(i)).append("/unitas/store'}\n");
        }
        y.append("  - {name: store-writable, kind: any, of: [").append(String.join(", ", names)).append("]}\n")
         .append("push:\n")
         .append("  url: ").append(control()).append("/api/v1/health/").append(r.id()).append('\n')
         .append("  token-file: '").append(workDir.resolve("reporter.token")).append("'\n")
         .append("  every: 500ms\n");
        return y.toString();
    }

    private String gatewayYaml(Region here) {
        StringBuilder y = new StringBuilder();
        y.append("region: ").append(here.id()).append('\n')
         .append("listen: 127.0.0.1:").append(layout.gatewayPort(here)).append('\n')
         .append("upstreams:\n");
        for (Region r : layout.regions()) {
            if (r.equals(here)) {
                y.append("  ").append(r.id()).append(": {endpoints: [")
                 .append(layout.shopPorts(r).stream().map(p -> "'127.0.0.1:" + p + "'")
                               .collect(Collectors.joining(", ")))
                 .append("], health_check: /livez}\n");
            } else {
                y.append("  ").append(r.id()).append(": {endpoints: ['127.0.0.1:").append(layout.gatewayPort(r))
                 .append("'], health_check: /unitas/healthz}\n");
            }
        }
        y.append("control_plane:\n")
         .append("  url: ").append(control()).append('\n')
         .append("  token_file: '").append(workDir.resolve("viewer.token")).append("'\n")
         .append("  state_file: '").append(workDir.resolve("gateway-" + here.id() + ".state.json")).append("'\n")
         .append("health_check: {path: /livez, interval: 1s}\n")
         .append("timeouts: {connect: 1s, response: 5s}\n")
         .append("trusted_peers: [127.0.0.1/32]\n") // every region's gateway runs on this host
         .append("access_log: off\n");
        return y.toString();
    }

    private Path write(String name, String text) {
        try {
            Path file = workDir.resolve(name);
            Files.writeString(file, text);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("playground: cannot write " + name, e);
        }
    }

    @Override
    public void awaitReady(Duration timeout) {
        ShopClient client = new ShopClient(Duration.ofSeconds(2));
        long end = System.nanoTime() + timeout.toNanos();
        String waitingFor = "";
        while (System.nanoTime() < end) {
            waitingFor = notYetRouted(client);
            if (waitingFor.isEmpty()) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("playground: interrupted while starting");
            }
        }
        throw new IllegalStateException("playground: not ready after " + timeout.toMillis() + " ms: " + waitingFor);
    }

    /** Empty when every gateway sends every home's users home; else what is not yet so. */
    private String notYetRouted(ShopClient client) {
        for (Region entry : running.keySet()) {
            for (Region home : layout.regions()) {
                ShopClient.Reply r = client.cart(gateway(entry), layout.userId(home, 0), "probe");
                if (!r.servedBy().equals(home.id())) {
                    return "gateway " + entry + " answers for users of " + home + " with " + r.status() + " "
                           + r.problem() + (r.servedBy().isEmpty() ? "" : " from " + r.servedBy());
                }
            }
        }
        return "";
    }

    @Override
    public List<Region> regions() {
        return layout.regions();
    }

    @Override
    public URI control() {
        return URI.create("http://127.0.0.1:" + layout.controlPort());
    }

    @Override
    public String adminToken() {
        return admin.secret();
    }

    @Override
    public URI gateway(Region region) {
        return URI.create("http://127.0.0.1:" + layout.gatewayPort(region));
    }

    @Override
    public List<URI> shops(Region region) {
        return layout.shopPorts(region).stream().map(p -> URI.create("http://127.0.0.1:" + p)).toList();
    }

    @Override
    public URI health(Region region) {
        return URI.create("http://127.0.0.1:" + layout.healthPort(region));
    }

    @Override
    public RegionalStore store(Region region) {
        RegionalStore s = stores.get(region);
        if (s == null) {
            throw new IllegalArgumentException("region: " + region + " (expected: one of " + layout.regions() + ")");
        }
        return s;
    }

    @Override
    public Replicator replicator() {
        return replicator;
    }

    @Override
    public String userId(Region home, long seq) {
        return layout.userId(home, seq);
    }

    @Override
    public ShopMode mode() {
        return mode;
    }

    @Override
    public String describe() {
        StringBuilder s = new StringBuilder();
        s.append(String.format("%-8s %-28s %s%n", "region", "gateway (send users here)", "health · shops"));
        for (Region r : layout.regions()) {
            s.append(String.format("%-8s %-28s %s/readyz · %s%n", r.id(), gateway(r), health(r),
                                   shops(r).stream().map(URI::toString).collect(Collectors.joining(" "))));
        }
        Region home = layout.regions().get(0);
        String user = layout.userId(home, 1);
        s.append(String.format("%ncontrol plane and console: %s/  (admin token: %s)%n", control(), adminToken()));
        s.append(String.format("users: ids mod %d in [1000 i, 1000 i + 999] live in region i (%s); %s is a user of %s%n",
                               Layout.USERS_PER_UNIT * layout.regions().size(), layout.regions().stream()
                                       .map(Region::id).collect(Collectors.joining(", ")), user, home));
        s.append(String.format("%ntry:%n"));
        s.append(String.format("  curl -si -X POST -H 'x-user-id: %s' -d '{\"name\":\"Ann\"}' %s/register%n", user,
                               gateway(home)));
        s.append(String.format("  curl -si -X POST -H 'x-user-id: %s' %s/login%n", user, gateway(home)));
        s.append(String.format("  curl -si -X POST -H 'x-user-id: %s' -H 'authorization: Bearer TOKEN' "
                               + "-H 'idempotency-key: k-1' -d '{\"items\":{\"book\":1}}' %s/checkout%n", user,
                               gateway(layout.regions().get(1))));
        s.append(String.format("%nconfiguration files: %s%n", workDir));
        return s.toString();
    }

    @Override
    public synchronized void close() {
        CompletableFuture.allOf(running.values().stream().map(p -> CompletableFuture.runAsync(p::close))
                                       .toArray(CompletableFuture[]::new)).join();
        running.clear();
        stopControlPlane();
        replicator.close();
        stores.values().forEach(RegionalStore::close);
        if (ownWorkDir) {
            deleteQuietly(workDir);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // stopping: nothing left to do about a piece that fails to stop
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temporary directory is harmless
        }
    }
}
