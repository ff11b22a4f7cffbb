package io.unitas.playground;

import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlException;
import io.unitas.control.client.wire.DocumentText;
import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.core.Region;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitRules;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.ChangeReconciler;
import io.unitas.playground.store.ShopReconciler;
import io.unitas.data.HomeResolver;
import io.unitas.data.reconcile.Reconciliations;
import io.unitas.core.rules.KeySource;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.ShopData;
import io.unitas.playground.store.StoreDirectory;
import io.unitas.playground.store.StoreMode;
import io.unitas.gateway.Gateway;
import io.unitas.gateway.GatewayConfig;
import io.unitas.health.HealthConfig;
import io.unitas.health.HealthServer;
import io.unitas.testkit.KafkaCluster;
import io.unitas.testkit.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
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
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The in-process playground. The gateways and health agents read the same YAML files their commands read, written
 * into the work directory, so what runs here is what {@code unitas gateway} and {@code unitas health serve} run.
 */
final class DefaultPlayground implements Playground {

    // The health settings the failover promise is computed from (docs/playground.md, "Failover").
    private static final Duration CHECK_INTERVAL = Duration.ofMillis(500);
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(1);
    private static final int FALL = 2;
    private static final Duration PUSH_EVERY = Duration.ofMillis(500);
    private static final Duration HEALTH_TTL = Duration.ofSeconds(2);
    private static final Duration HEALTH_GRACE = Duration.ofSeconds(1);
    /** A region that missed two pushes and that another region's gateway cannot reach is down. */
    private static final Duration HEALTH_TTL_WITH_EVIDENCE = PUSH_EVERY.multipliedBy(3);
    /**
     * After detection: the control plane's tick (100 ms), the watch event to every gateway and a client's next
     * attempt (the drill's retry pauses are 150 to 450 ms); about 0.5 s on an idle machine, the rest is room for a
     * loaded one, where the checks and pushes before it run late too (docs/playground.md, "Failover", has what was
     * measured: 4.2 s for db-readonly at a load average of 50 on 2 cores).
     */
    private static final Duration REACTION = Duration.ofSeconds(3);
    /**
     * A read from another region's home gives up after this (data-not-ready, retried by the client): room for a
     * loaded machine, well inside the shop's own request timeout; the hedge goes out when the first attempt is slow.
     */
    private static final Duration HOME_READ_DEADLINE = Duration.ofSeconds(1);
    private static final Duration HOME_READ_HEDGE = Duration.ofMillis(300);

    /**
     * A drill's failover policy moves the faulted region's unit, and the drill switches it back a few seconds after
     * recovery so that the next one starts from the layout's homes; a minute between flips would stall it.
     */
    private static final Duration SWITCHOVER_COOLDOWN = Duration.ofSeconds(3);

    private final Layout layout;
    private final ShopMode mode;
    private final Path workDir;
    private final boolean ownWorkDir;
    private final Clock clock = Clock.systemUTC();
    /** The fallback pool's one address: every gateway listens on loopback, a service's port is used with it. */
    private static final java.net.InetAddress LOOPBACK = loopback();
    private final ControlToken admin = ControlToken.generate("admin", Role.ADMIN);
    private final ControlToken reporter = ControlToken.generate("health-agents", Role.REPORTER);
    private final ControlToken viewer = ControlToken.generate("gateways", Role.VIEWER);
    /** The bearer token every region's home-read server accepts from the others. */
    private final String homeReadToken = ControlToken.generate("home-reads", Role.VIEWER).secret();
    private final Map<Region, RegionalStore> stores = new LinkedHashMap<>();
    private final Map<Region, RegionProcesses> running = new LinkedHashMap<>();
    private final StoreDirectory directory;
    private final UnitRules rules;
    private final Replicator replicator;
    private final ShopReconciler reconciler;
    private final StoreKind storeKind;
    /** The regions' PostgreSQL servers with {@code --store postgres}, else null. */
    private final PostgresRegions postgres;
    /** The broker replication goes through with {@code --replication kafka}, else null. */
    private final KafkaCluster kafka;
    private ControlServer control;
    private volatile LiveHomes homes;
    private EntryDns dns;
    /** The example service pair in every region, when the builder asked for it; else null. */
    private ExampleServices example;

    /** What one region runs besides its store. */
    private record RegionProcesses(List<Shop> shops, HealthServer health, Gateway gateway, HomeReadServer homeReads,
                                   HomeReadClient homeReadClient) {
        /**
         * Closes every piece at the same moment, as a region that dies does: the health agent's last push is sent
         * when the gateway stops answering, not after the gateway has drained (which made a dead region look
         * healthy to the control plane for as long as the drain took).
         */
        void close() {
            Stream<AutoCloseable> all = Stream.concat(Stream.of(health, gateway, homeReads, homeReadClient),
                                                      shops.stream());
            CompletableFuture.allOf(all.map(c -> CompletableFuture.runAsync(() -> closeQuietly(c)))
                                       .toArray(CompletableFuture[]::new)).join();
        }
    }

    private DefaultPlayground(Playground.Builder b, Layout layout) throws IOException {
        this.layout = layout;
        this.mode = b.mode;
        this.ownWorkDir = b.workDir == null;
        this.workDir = ownWorkDir ? Files.createTempDirectory("unitas-playground") : b.workDir;
        Files.createDirectories(workDir);
        // Each gateway has a token of its own, bound to its region: it reads the state and reports the peer
        // regions it cannot connect to, as that region only (docs/control.md, "Peer evidence").
        List<String> tokenLines = new java.util.ArrayList<>(List.of(admin.fileLine(), reporter.fileLine(),
                                                                    viewer.fileLine()));
        for (Region r : layout.regions()) {
            ControlToken gateway = ControlToken.generate("gateway-" + r.id(), Role.OBSERVER, r.id());
            tokenLines.add(gateway.fileLine());
            SecretFiles.writePrivate(workDir.resolve("gateway-" + r.id() + ".token"), gateway.secret());
        }
        Files.writeString(workDir.resolve("tokens"), String.join("\n", tokenLines) + "\n");
        // the token files are read as secrets (SecretFiles.checkPrivate): their owner's only
        SecretFiles.writePrivate(workDir.resolve("reporter.token"), reporter.secret());
        SecretFiles.writePrivate(workDir.resolve("viewer.token"), viewer.secret());
        this.storeKind = b.store;
        this.postgres = storeKind == StoreKind.POSTGRES ? PostgresRegions.start(layout) : null;
        try {
            for (Region r : layout.regions()) {
                stores.put(r, postgres == null ? RegionalStore.embedded(r, clock) : postgres.store(r, clock));
            }
        } catch (RuntimeException e) {
            stores.values().forEach(RegionalStore::close);
            if (postgres != null) {
                postgres.close();
            }
            throw e;
        }
        this.directory = StoreDirectory.of(stores.values().toArray(RegionalStore[]::new));
        this.rules = layout.rules();
        // The naive setup has no reconciliation: its units never move, and a region's changes overwrite on arrival.
        this.reconciler = b.mode == ShopMode.NAIVE ? null : new ShopReconciler(this::unitHomes,
                HomeResolver.rules(() -> rules, KeySource.header(ShopServer.USER_HEADER)), clock);
        Replicator.Builder replication = Replicator.builder().stores(stores.values().toArray(RegionalStore[]::new))
                .clock(clock).delay(b.replicationDelay).pollInterval(Duration.ofMillis(10))
                .reconciler(reconciler == null ? ChangeReconciler.ORDINARY : reconciler);
        KafkaCluster broker = null;
        try {
            if (b.replication == ReplicationKind.KAFKA) {
                broker = KafkaCluster.start(1, false);
                replication.kafka(broker.bootstrapServers(), "unitas.");
            }
            this.replicator = replication.build();
        } catch (RuntimeException e) {
            if (broker != null) {
                broker.close();
            }
            stores.values().forEach(RegionalStore::close);
            if (postgres != null) {
                postgres.close();
            }
            throw e;
        }
        this.kafka = broker;
    }

    static Playground start(Playground.Builder b, Layout layout) {
        if (b.example && b.mode != ShopMode.UNITAS) {
            throw new IllegalArgumentException("example: runs with unitas shops only (expected: no example with "
                                               + b.mode + " shops)");
        }
        if (b.store == StoreKind.POSTGRES && !PostgresServer.missing().isEmpty()) {
            throw new IllegalStateException(PostgresServer.missing());
        }
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
            p.homes = LiveHomes.follow(p.control(), p.viewer.secret(), p.workDir.resolve("shops-state.json"));
            if (b.mode == ShopMode.UNITAS) { // naive clients follow a DNS model, not a server
                p.dns = EntryDns.start(layout, p.workDir, p.control(), p.workDir.resolve("viewer.token"));
            }
            if (b.example) {
                p.example = new ExampleServices(layout, p.workDir, p.write("topology.json", layout.topologyJson()),
                                                p.write("rules.json", layout.rulesJson()), p.control().toString());
            }
            p.startRegions(layout.regions());
            return p;
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
    }

    private void seedControlPlane() {
        ControlClient client = ControlClient.of(control(), admin.secret());
        expectOk(() -> client.replaceTopology(DocumentText.json(layout.topologyJson()), client.state().revision(), ""));
        expectOk(() -> client.replaceRules(DocumentText.json(layout.rulesJson()), client.state().revision(), ""));
    }

    private static void expectOk(Runnable change) {
        try {
            change.run();
        } catch (ControlException e) {
            throw new IllegalStateException("control plane refused the playground's model: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void startControlPlane() {
        if (control != null) {
            return;
        }
        control = ControlServer.builder().port(layout.controlPort()).dataDir(workDir.resolve("control"))
                               .tokens(workDir.resolve("tokens"))
                               .healthFreshness(HEALTH_TTL, HEALTH_GRACE)
                               .healthTtlWithEvidence(HEALTH_TTL_WITH_EVIDENCE)
                               .switchoverCooldown(SWITCHOVER_COOLDOWN)
                               .fallbackPool(List.of(LOOPBACK)).start(); // every gateway listens on loopback
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
        startRegions(List.of(region));
    }

    /**
     * Starts the regions side by side (each one's servers bind and warm up independently, which halves the start
     * on two cores); when one fails, the others started here are stopped again and the first failure is thrown.
     */
    private synchronized void startRegions(List<Region> regions) {
        List<Region> toStart = regions.stream().filter(r -> !running.containsKey(r)).toList();
        toStart.forEach(r -> stores.get(r).mode(StoreMode.READ_WRITE));
        if (postgres != null) {
            toStart.forEach(postgres::restart);
        }
        Map<Region, CompletableFuture<RegionProcesses>> started = new LinkedHashMap<>();
        toStart.forEach(r -> started.put(r, CompletableFuture.supplyAsync(() -> launch(r))));
        RuntimeException failure = null;
        for (Map.Entry<Region, CompletableFuture<RegionProcesses>> e : started.entrySet()) {
            try {
                running.put(e.getKey(), e.getValue().join());
            } catch (CompletionException ce) {
                if (failure == null) {
                    failure = ce.getCause() instanceof RuntimeException re ? re : ce;
                }
            }
        }
        if (failure != null) {
            toStart.stream().map(running::remove).filter(Objects::nonNull).forEach(RegionProcesses::close);
            if (example != null) {
                toStart.forEach(example::stop);
            }
            throw failure;
        }
    }

    /**
     * Starts a region's home-read server, shops, health agent and gateway. The shops read what is not yet in their
     * region from its home region's home-read server, and claim checkouts' Idempotency-Keys there, over HTTP/2 on
     * loopback.
     */
    private RegionProcesses launch(Region region) {
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            HomeReadServer homeReads = ShopData.serve(HomeReadServer.builder(), stores.get(region), clock)
                    .region(region).owns(unit -> ownedBy(unit, region)).token(homeReadToken)
                    .listen("127.0.0.1", layout.homeReadPort(region)).start();
            opened.add(homeReads);
            HomeReadClient.Builder client = HomeReadClient.builder().token(homeReadToken)
                    .deadline(HOME_READ_DEADLINE).hedgeAfter(HOME_READ_HEDGE);
            layout.regions().stream().filter(r -> !r.equals(region))
                  .forEach(r -> client.endpoint(r, URI.create("http://127.0.0.1:" + layout.homeReadPort(r))));
            HomeReadClient homeReadClient = client.build();
            opened.add(homeReadClient);
            if (example != null) {
                example.start(region);
                opened.add(() -> example.stop(region));
            }
            List<Shop> shops = new ArrayList<>();
            List<Integer> ports = layout.shopPorts(region);
            for (int i = 0; i < ports.size(); i++) {
                Shop.Builder builder = Shop.builder().region(region).stores(directory).rules(rules).homes(homes).mode(mode)
                                .homeReads(homeReadClient).instance(region.id() + "-" + (char) ('a' + i))
                                .port(ports.get(i)).clock(clock);
                if (example != null) {
                    builder.mount(ExampleProxy.PREFIX, example.proxy(region));
                }
                Shop shop = builder.start();
                shops.add(shop);
                opened.add(shop);
            }
            HealthServer health = HealthServer.start(HealthConfig.read(write("health-" + region.id() + ".yaml",
                    healthYaml(region))), clock, new UnitLagMeter(stores.get(region), layout.regions(), replicator,
                                                                  rules, clock));
            opened.add(health);
            Gateway gateway = Gateway.start(GatewayConfig.read(write("gateway-" + region.id() + ".yaml",
                                                                     gatewayYaml(region))));
            return new RegionProcesses(shops, health, gateway, homeReads, homeReadClient);
        } catch (RuntimeException e) {
            opened.forEach(DefaultPlayground::closeQuietly);
            throw e;
        }
    }

    /**
     * Whether {@code region} is home to {@code unit} now: in the control plane's live unit map (after a switchover or
     * a promotion), else in the playground's unit rules. A region's home-read server refuses the others.
     */
    private boolean ownedBy(String unit, Region region) {
        Unit u = rules.unit(unit);
        return u != null && homes.apply(u).orElse(u.home()).equals(region);
    }

    @Override
    public synchronized void stopRegion(Region region) {
        RegionProcesses p = running.remove(region);
        if (p != null) {
            p.close();
        }
        if (example != null) {
            example.stop(region);
        }
        if (postgres != null) {
            postgres.kill(region);
        } else {
            stores.get(region).mode(StoreMode.UNAVAILABLE);
        }
    }

    @Override
    public ExampleCalls exampleCalls() {
        return example == null ? ExampleCalls.none() : example.counts();
    }

    @Override
    public StoreKind storeKind() {
        return storeKind;
    }

    @Override
    public void databaseMode(Region region, StoreMode mode) {
        RegionalStore store = store(region);
        if (postgres == null || mode == StoreMode.UNAVAILABLE) {
            store.mode(mode);
            return;
        }
        postgres.readOnly(region, mode == StoreMode.READ_ONLY);
        store.mode(StoreMode.READ_WRITE);
    }

    /** The region's health: its store must take writes (a check through each shop; one answering is enough). */
    private String healthYaml(Region r) {
        List<Integer> shops = layout.shopPorts(r);
        StringBuilder y = new StringBuilder();
        y.append("region: ").append(r.id()).append('\n')
         .append("listen: {address: 127.0.0.1, http: ").append(layout.healthPort(r))
         .append(", grpc: ").append(layout.healthGrpcPort(r)).append("}\n")
         .append("defaults: {interval: ").append(CHECK_INTERVAL.toMillis()).append("ms, timeout: ")
         .append(CHECK_TIMEOUT.toMillis()).append("ms, fall: ").append(FALL).append(", rise: 2}\n")
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
         .append("  every: ").append(PUSH_EVERY.toMillis()).append("ms\n");
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
         .append("  token_file: '").append(workDir.resolve("gateway-" + here.id() + ".token")).append("'\n")
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
        return example == null ? "" : example.notYetServing(this::gateway);
    }

    @Override
    public Duration failoverPromise(Scenario scenario) {
        return switch (scenario) {
            // The health agent sees the store refuse writes after fall checks (each within its timeout) and
            // pushes the change at once.
            case DB_READONLY, REPLICATION_BACKLOG -> CHECK_INTERVAL.multipliedBy(FALL).plus(CHECK_TIMEOUT)
                                                                   .plus(REACTION);
            // Nothing is left to report: the control plane notices the silence after the last push (at most one
            // push interval old) has aged past the TTL; the other regions' gateways, refused by the dead region's,
            // have reported it unreachable since, so it is down then without waiting out the grace.
            case REGION_DOWN -> PUSH_EVERY.plus(HEALTH_TTL).plus(REACTION);
            case CONTROL_PLANE_DOWN, DNS_DOWN -> throw new IllegalArgumentException(
                    "scenario: " + scenario.id() + " moves no traffic (expected: one whose users fail over)");
            case PARTITION, SLOW_REGION -> throw new IllegalArgumentException(
                    "scenario: " + scenario.id() + " runs on processes only (expected: one the playground runs)");
        };
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
    public InetSocketAddress dns() {
        return entryDns().address();
    }

    @Override
    public String clientNetwork(Region region) {
        return layout.clientNetwork(region);
    }

    @Override
    public Path fallbackPool() {
        return entryDns().pool();
    }

    @Override
    public void stopDns() {
        if (dns != null) {
            dns.stopServer();
        }
    }

    @Override
    public void startDns() {
        if (dns != null) {
            dns.startServer();
        }
    }

    private EntryDns entryDns() {
        if (dns == null) {
            throw new IllegalStateException("playground: a playground of naive shops runs no DNS server");
        }
        return dns;
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
    public ReplicationKind replicationKind() {
        return kafka == null ? ReplicationKind.EMBEDDED : ReplicationKind.KAFKA;
    }

    @Override
    public Replicator replicator() {
        return replicator;
    }

    /** Every unit's home now: the control plane's live map once it is followed, the rules' before. */
    private Map<String, Region> unitHomes() {
        LiveHomes live = homes;
        Map<String, Region> now = new LinkedHashMap<>();
        for (Unit unit : rules.units()) {
            now.put(unit.id(), live == null ? unit.home() : live.apply(unit).orElse(unit.home()));
        }
        return now;
    }

    @Override
    public Reconciliations.Report reconciliation() {
        return reconciler == null ? new Reconciliations().report() : reconciler.report();
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
        if (dns != null) {
            s.append(String.format("entry DNS (unitas dns): dig @127.0.0.1 -p %d %s SRV +subnet=%s%n",
                                   layout.dnsPort(), EntryDns.SERVICE,
                                   layout.clientNetwork(home).replace("/16", "/24")));
        }
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
        if (example != null) {
            s.append(String.format("%nexample services (order -> inventory, Spring Boot with the unitas starter), "
                                   + "through any gateway under %s/:%n", ExampleProxy.PREFIX));
            s.append(String.format("  curl -si -X POST -H 'x-user-id: %s' -H 'content-type: application/json' "
                                   + "-d '{\"sku\":\"book\",\"quantity\":1}' %s%s/orders%n", user,
                                   gateway(layout.regions().get(1)), ExampleProxy.PREFIX));
            s.append(String.format("  instances: %s; what each served: GET /calls on them%n", layout.regions().stream()
                    .map(r -> r.id() + " order :" + layout.exampleOrderPort(r) + " inventory :"
                              + layout.exampleInventoryPort(r)).collect(Collectors.joining(" · "))));
        }
        if (postgres != null) {
            s.append(String.format("%nPostgreSQL per region: %s%n", String.join(" · ", postgres.describe())));
        }
        if (kafka != null) {
            s.append(String.format("%nreplication: through Kafka at %s (topics unitas.changes.<region>)%n",
                                   kafka.bootstrapServers()));
        }
        s.append(String.format("%nconfiguration files: %s%n", workDir));
        return s.toString();
    }

    @Override
    public synchronized void close() {
        CompletableFuture.allOf(running.values().stream().map(p -> CompletableFuture.runAsync(p::close))
                                       .toArray(CompletableFuture[]::new)).join();
        running.clear();
        if (dns != null) {
            dns.close();
        }
        if (example != null) {
            example.close();
        }
        stopControlPlane();
        if (homes != null) {
            homes.close();
        }
        replicator.close();
        if (kafka != null) {
            kafka.close();
        }
        stores.values().forEach(RegionalStore::close);
        if (postgres != null) {
            postgres.close();
        }
        if (ownWorkDir) {
            deleteQuietly(workDir);
        }
    }

    private static java.net.InetAddress loopback() {
        try {
            return java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e); // four bytes are always an IPv4 address
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
