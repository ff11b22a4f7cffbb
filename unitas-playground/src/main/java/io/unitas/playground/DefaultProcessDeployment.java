package io.unitas.playground;

import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.config.internal.SecretFiles;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.ControlException;
import io.unitas.control.client.wire.DocumentText;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.example.ExampleService.Kind;
import io.unitas.testkit.PostgresServer;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * The deployment's files and processes. Each JVM is started with settings chosen for a small machine (two cores):
 * {@link #JVM} for all, and a heap bound per kind of process ({@link #HEAP}); docs/deploy.md has what they measured.
 */
final class DefaultProcessDeployment implements ProcessDeployment {

    /**
     * Every JVM: the serial collector (no GC threads competing for two cores), the client compiler only (start-up
     * and resident compiled code, not peak speed, are what a dozen JVMs on two cores are short of), smaller thread
     * stacks, and Netty's leak sampling off.
     */
    static final List<String> JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k",
                                            "-XX:ReservedCodeCacheSize=48m", "-Dio.netty.leakDetection.level=disabled");
    /** The heap bound per kind of process (each lives on a few to a few tens of megabytes). */
    static final Map<String, String> HEAP = Map.of("control", "-Xmx128m", "gateway", "-Xmx128m",
                                                   "health", "-Xmx64m", "wallet", "-Xmx192m",
                                                   "kafka", "-Xmx256m", "dns", "-Xmx64m",
                                                   "example", "-Xmx128m");
    static final String UNITAS_MAIN = "io.unitas.cli.Main";
    static final String WALLET_MAIN = "io.unitas.example.wallet.WalletService";
    static final String EXAMPLE_MAIN = "io.unitas.example.ExampleMain";
    static final String DATABASE = "wallet";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(600);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Layout layout;
    private final Path dir;
    private final String java;
    private final String classPath;
    private final Consumer<String> progress;
    private final int instances;
    private final Replication replication;
    private final boolean naive;
    private final boolean example;
    private final KafkaBroker kafka; // null without replication
    /** The kinds of JVM whose class-data archive a process of this start writes at its exit (one per kind). */
    private final Set<String> archiving = ConcurrentHashMap.newKeySet();
    private final ControlToken admin = ControlToken.generate("admin", Role.ADMIN);
    private final ControlToken reporter = ControlToken.generate("health-agents", Role.REPORTER);
    private final ControlToken viewer = ControlToken.generate("services", Role.VIEWER);
    private final String homeReadToken = ControlToken.generate("home-reads", Role.VIEWER).secret();
    private final Map<Region, List<ChildProcess>> regionProcesses = new LinkedHashMap<>();
    /** The fault proxies every inter-region connection crosses; none in the naive setup, which has no such traffic. */
    private final List<Link> links = new ArrayList<>();
    private AutoCloseable linksLog; // null: no links
    private PostgresRegions postgres;
    private ChildProcess control;
    private Duration startTime = Duration.ZERO;
    /** How long each region's DNS server took from its start to taking connections, in milliseconds. */
    private final Map<Region, Long> dnsStartMillis = new ConcurrentHashMap<>();
    /** Stops every child when this JVM exits (Ctrl-C, SIGTERM), also in the middle of the start. */
    private final Thread stopOnExit = new Thread(this::close, "unitas-deployment-stop");
    private boolean closed;

    private DefaultProcessDeployment(ProcessDeployment.Builder b, Layout layout) {
        this.layout = layout;
        this.dir = b.deployDir.toAbsolutePath().normalize();
        this.java = b.java;
        this.classPath = b.classPath;
        this.progress = b.progress;
        this.instances = b.instances;
        this.replication = b.replication;
        this.naive = b.naive;
        this.example = b.example;
        this.kafka = replication == Replication.KAFKA
                ? new KafkaBroker(dir.resolve("kafka"), layout.kafkaPort(), layout.kafkaControllerPort(), jvm("kafka"),
                                  layout.regions().stream().map(r -> new KafkaBroker.Listener(
                                          r.id(), layout.kafkaRegionPort(r), layout.kafkaLinkPort(r))).toList())
                : null;
    }

    static ProcessDeployment start(ProcessDeployment.Builder b, Layout layout) {
        String missing = PostgresServer.missing();
        if (!missing.isEmpty()) {
            throw new IllegalStateException(missing);
        }
        DefaultProcessDeployment d = new DefaultProcessDeployment(b, layout);
        long started = System.nanoTime();
        Runtime.getRuntime().addShutdownHook(d.stopOnExit);
        try {
            d.writeFiles();
            d.startLinks();
            d.progress.accept("starting PostgreSQL in " + layout.regions().size() + " regions ...");
            d.postgres = PostgresRegions.start(layout);
            layout.regions().forEach(r -> d.postgres.createDatabase(r, DATABASE));
            if (d.kafka != null) {
                d.progress.accept("starting Kafka ...");
                ChildProcess k = d.kafka.start(clusterId());
                d.progress.accept("  kafka (pid " + k.pid() + ", log " + d.dir.relativize(k.log()) + ")");
            }
            if (!d.naive) {
                d.progress.accept("starting the control plane ...");
                d.control = d.unitas("control", "control", d.dir.resolve("control"), "control",
                        "--port", Integer.toString(layout.controlPort()), "--data",
                        d.dir.resolve("control/data").toString(), "--tokens", d.dir.resolve("tokens/tokens").toString(),
                        "--health-ttl", "2s", "--health-grace", "1s", "--health-ttl-with-evidence", "1500ms",
                        // a drill moves the faulted region's unit and then back home once it is over
                        "--switchover-cooldown", "3s",
                        // every gateway listens on loopback: what a client of any region dials when DNS fails
                        "--fallback-pool", "127.0.0.1").start();
                d.awaitHttp(d.control, d.control().resolve("/api/v1/whoami"), d.admin.secret());
                d.seedControlPlane();
            }
            if (d.kafka != null) {
                d.kafka.awaitReady(); // the wallets create their topics as they start
            }
            layout.regions().forEach(r -> d.regionProcesses.put(r, d.regionCommands(r)));
            d.progress.accept("starting " + layout.regions().size() + " regions ...");
            d.startRegions(layout.regions());
            d.awaitReady(START_TIMEOUT);
            d.startTime = Duration.ofNanos(System.nanoTime() - started);
            return d;
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
    }

    /** The files a deployment of {@code b} runs on, written without starting anything (what a test reads). */
    static DefaultProcessDeployment files(ProcessDeployment.Builder b) {
        b.validate();
        DefaultProcessDeployment d = new DefaultProcessDeployment(b, new Layout(b.regions, b.portsFrom));
        d.writeFiles();
        return d;
    }

    // ---- files ----

    private void writeFiles() {
        write("topology.yaml", topologyYaml());
        write("rules.yaml", rulesYaml());
        write("tokens/tokens", String.join("\n", tokenLines()) + "\n");
        writeSecret("tokens/admin.token", admin.secret());
        writeSecret("tokens/reporter.token", reporter.secret());
        writeSecret("tokens/viewer.token", viewer.secret());
        writeSecret("tokens/home-reads.token", homeReadToken);
        if (kafka != null) {
            kafka.writeFiles();
        }
        for (Region r : layout.regions()) {
            if (naive) {
                write(r.id() + "/rules.yaml", naiveRulesYaml(r));
            } else {
                write(r.id() + "/gateway.yaml", gatewayYaml(r));
                write(r.id() + "/health.yaml", healthYaml(r));
                write(r.id() + "/dns.yaml", dnsYaml(r));
            }
            for (int i = 0; i < instances; i++) {
                write(r.id() + "/wallet-" + instance(i) + ".properties", naive ? naiveWalletProperties(r, i)
                                                                               : walletProperties(r, i));
            }
            if (example) {
                writeExampleFiles(r);
            }
        }
    }

    private List<String> tokenLines() {
        List<String> lines = new ArrayList<>(List.of(admin.fileLine(), reporter.fileLine(), viewer.fileLine()));
        // each gateway has a token of its own, bound to its region (it reports the peers it cannot reach as its own)
        for (Region r : layout.regions()) {
            ControlToken gateway = ControlToken.generate("gateway-" + r.id(), Role.OBSERVER, r.id());
            lines.add(gateway.fileLine());
            writeSecret("tokens/gateway-" + r.id() + ".token", gateway.secret());
        }
        return lines;
    }

    private String topologyYaml() {
        StringBuilder y = new StringBuilder("# The regions, in fallback order; the first is the center.\nregions:\n");
        layout.regions().forEach(r -> y.append("  - {id: ").append(r.id()).append(", capacity: 100}\n"));
        return y.append("center: ").append(layout.regions().get(0).id()).append('\n').toString();
    }

    /** The playground's units and ranges, the user taken from the wallet's path first, else from {@code x-user-id}. */
    private String rulesYaml() {
        int n = layout.regions().size();
        StringBuilder y = new StringBuilder("# The user is the wallet path's {userId} (or the x-user-id header); ids mod ")
                .append(n * Layout.USERS_PER_UNIT).append(" in [1000 i, 1000 i + 999] live in region i.\nunits:\n");
        layout.regions().forEach(r -> y.append("  - {id: ").append(Layout.unitOf(r)).append(", region: ")
                                       .append(r.id()).append("}\n"));
        y.append("key:\n  sources:\n    - path: /wallets/{userId}\n    - header: ").append(ShopServer.USER_HEADER)
         .append("\n  transform: mod ").append(n * Layout.USERS_PER_UNIT).append("\n  missing: reject\nranges:\n");
        for (int i = 0; i < n; i++) {
            y.append("  - {range: ").append(i * Layout.USERS_PER_UNIT).append('~')
             .append(i * Layout.USERS_PER_UNIT + Layout.USERS_PER_UNIT - 1).append(", unit: ")
             .append(Layout.unitOf(layout.regions().get(i))).append("}\n");
        }
        return y.toString();
    }

    /**
     * The naive setup's rules in region {@code here}: the same ranges, every unit homed here, as a service that
     * believes itself every user's home reads them.
     */
    String naiveRulesYaml(Region here) {
        StringBuilder y = new StringBuilder("# The naive setup: " + here.id() + " believes it is every user's home, so"
                                            + " every unit lives here.\n");
        String shared = rulesYaml();
        for (String line : shared.lines().skip(1).toList()) {
            y.append(line.startsWith("  - {id: ") ? line.replaceFirst("region: [^}]*}", "region: " + here.id() + "}")
                                                  : line).append('\n');
        }
        return y.toString();
    }

    private String healthYaml(Region r) {
        return "# " + r.id() + "'s health agent: the region serves while its database takes writes.\n"
               + "region: " + r.id() + "\n"
               + "listen: {address: 127.0.0.1, http: " + layout.healthPort(r) + ", grpc: " + layout.healthGrpcPort(r)
               + "}\n"
               + "defaults: {interval: 500ms, timeout: 1s, fall: 2, rise: 2}\n"
               + "checks:\n"
               + "  - name: wallet-db\n"
               + "    kind: postgres\n"
               + "    target: 'postgresql://postgres@127.0.0.1:" + layout.databasePort(r) + "/" + DATABASE + "'\n"
               + "    role: primary\n"
               + "    unitas-schema: true     # report the region's per-unit replication positions\n"
               + "push:\n"
               + "  url: " + control() + "/api/v1/health/" + r.id() + "\n"
               + "  token-file: '" + dir.resolve("tokens/reporter.token") + "'\n"
               + "  every: 500ms\n";
    }

    /** {@code here}'s DNS server: the playground's entry zone on its own port, fed by the control plane's watch. */
    private String dnsYaml(Region here) {
        return "# " + here.id() + "'s DNS server: " + ENTRY_SERVICE + " names each region's gateway, its clients'"
               + " region first.\n"
               + EntryDns.yaml(layout, layout.regionDnsPort(here), control(), dir.resolve("tokens/viewer.token"),
                               dir.resolve(here.id() + "/dns.state.json"));
    }

    private String gatewayYaml(Region here) {
        StringBuilder y = new StringBuilder("# " + here.id() + "'s gateway: its wallet instances, and the other"
                                            + " regions' gateways.\n");
        y.append("region: ").append(here.id()).append('\n')
         .append("listen: 127.0.0.1:").append(layout.gatewayPort(here)).append('\n')
         .append("upstreams:\n");
        for (Region r : layout.regions()) {
            if (r.equals(here)) {
                y.append("  ").append(r.id()).append(": {endpoints: [")
                 .append(walletPorts(r).stream().map(p -> "'127.0.0.1:" + p + "'")
                               .collect(Collectors.joining(", ")))
                 .append("], health_check: /actuator/health/liveness}\n");
            } else { // through the link from here to r (LinkProxy)
                y.append("  ").append(r.id()).append(": {endpoints: ['127.0.0.1:")
                 .append(layout.linkPort(here, r, 0)).append("'], health_check: /unitas/healthz}\n");
            }
        }
        return y.append("control_plane:\n")
                .append("  url: ").append(control()).append('\n')
                .append("  token_file: '").append(dir.resolve("tokens/gateway-" + here.id() + ".token")).append("'\n")
                .append("  state_file: '").append(dir.resolve(here.id() + "/gateway.state.json")).append("'\n")
                .append("health_check: {path: /livez, interval: 1s}\n")
                .append("timeouts: {connect: 1s, response: 5s}\n")
                .append("trusted_peers: [127.0.0.1/32]\n")
                .append("access_log: off\n").toString();
    }

    private String walletProperties(Region r, int i) {
        StringBuilder p = new StringBuilder("# " + r.id() + "'s wallet instance " + instance(i) + "\n");
        p.append("server.port=").append(layout.shopPorts(r).get(i)).append('\n')
         .append("unitas.region=").append(r.id()).append('\n')
         .append("unitas.topology=file:").append(dir.resolve("topology.yaml")).append('\n')
         .append("unitas.rules=file:").append(dir.resolve("rules.yaml")).append('\n')
         .append("unitas.control-plane.url=").append(control()).append('\n')
         .append("unitas.control-plane.token-file=").append(dir.resolve("tokens/viewer.token")).append('\n')
         .append("unitas.control-plane.state-file=").append(dir.resolve(r.id() + "/wallet-" + instance(i)
                                                                          + ".state.json")).append('\n')
         .append("wallet.db.url=jdbc:postgresql://127.0.0.1:").append(layout.databasePort(r)).append('/')
         .append(DATABASE).append('\n')
         .append("unitas.readiness.home-reads.token-file=").append(dir.resolve("tokens/home-reads.token"))
         .append('\n')
         .append("unitas.readiness.home-reads.timeout=1s\n")
         // the fallback pool the control plane publishes, kept where the region's resolvers read it
         .append("unitas.resolver.pool-file=").append(fallbackPool(r)).append('\n');
        if (kafka != null) {
            p.append("unitas.replication.transport=kafka\n")
             .append("unitas.replication.kafka.bootstrap-servers=127.0.0.1:").append(layout.kafkaLinkPort(r))
             .append('\n');
        }
        // every instance serves home reads; the other regions read and claim at each in turn
        p.append("unitas.readiness.home-reads.server.port=").append(layout.homeReadPort(r, i)).append('\n');
        for (Region peer : layout.regions()) {
            if (!peer.equals(r)) {
                List<String> urls = new ArrayList<>();
                for (int j = 0; j < instances; j++) {
                    urls.add("http://127.0.0.1:" + layout.linkPort(r, peer, 1 + j)); // through the link to peer
                }
                p.append("unitas.readiness.home-reads.endpoints.").append(peer.id()).append('=')
                 .append(String.join(",", urls)).append('\n');
            }
        }
        return p.toString();
    }

    /**
     * A wallet instance of the naive setup: no control plane, no home reads, no replication; its region's own rules
     * ({@link #naiveRulesYaml}) home every unit here, so an idempotency record is kept here and a read is local only
     * (a miss is "not found"), and the write guard lets any user's write through.
     */
    String naiveWalletProperties(Region r, int i) {
        return "# " + r.id() + "'s wallet instance " + instance(i) + ", as the seed's team ran it: users reach it"
               + " directly\n# (GeoDNS), no gateway or control plane; this region believes it is every user's home.\n"
               + "server.port=" + layout.shopPorts(r).get(i) + "\n"
               + "unitas.region=" + r.id() + "\n"
               + "unitas.topology=file:" + dir.resolve("topology.yaml") + "\n"
               + "# every unit homed here: Idempotency-Key records kept in this region, reads local only\n"
               + "unitas.rules=file:" + dir.resolve(r.id() + "/rules.yaml") + "\n"
               + "# any user's write is served here\n"
               + "unitas.write-guard.mode=allow\n"
               + "wallet.db.url=jdbc:postgresql://127.0.0.1:" + layout.databasePort(r) + "/" + DATABASE + "\n";
    }

    private List<Integer> walletPorts(Region r) {
        return layout.shopPorts(r).subList(0, instances);
    }

    private static String instance(int i) {
        return String.valueOf((char) ('a' + i));
    }

    private Path write(String name, String text) {
        return write(name, text, false);
    }

    /** A token's secret: readable by its owner only, as the processes that read it require (SecretFiles). */
    private Path writeSecret(String name, String text) {
        return write(name, text, true);
    }

    private Path write(String name, String text, boolean secret) {
        try {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            if (secret) {
                SecretFiles.writePrivate(file, text);
            } else {
                Files.writeString(file, text);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("deploy: cannot write " + dir.resolve(name) + ": " + e.getMessage(), e);
        }
    }

    // ---- processes ----

    /** Kafka's generator: base64 of random bytes starts with '-' one time in 64, and format takes it for an option. */
    private static String clusterId() {
        return Uuid.randomUuid().toString();
    }

    private ChildProcess unitas(String name, String kind, Path logDir, String... args) {
        List<String> command = jvm(kind);
        command.add(UNITAS_MAIN);
        command.addAll(List.of(args));
        return new ChildProcess(name, command, logDir.resolve(kind + ".log"));
    }

    private List<String> jvm(String kind) {
        return jvm(java, HEAP.get(kind), cds(kind), classPath);
    }

    /** A JVM's command up to its main class: {@link #JVM}, the heap bound, {@code cds}, the class path. */
    static List<String> jvm(String java, String heap, List<String> cds, String classPath) {
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(JVM);
        command.add(heap);
        command.addAll(cds);
        command.addAll(List.of("-cp", classPath));
        return command;
    }

    /**
     * A class-data archive per kind of JVM beside the jar: read when it is newer than the jar (start-up maps the
     * classes instead of loading them, a third less CPU for a Spring service); otherwise the first process of the
     * kind writes it when it exits. A class path that is not one jar gets none.
     */
    private List<String> cds(String kind) {
        Path jar = Path.of(classPath);
        if (classPath.contains(File.pathSeparator) || !classPath.endsWith(".jar") || !Files.isRegularFile(jar)) {
            return List.of();
        }
        Path archive = jar.resolveSibling("unitas-deploy-" + kind + ".jsa");
        try {
            if (Files.isRegularFile(archive) && Files.getLastModifiedTime(archive).compareTo(
                    Files.getLastModifiedTime(jar)) > 0) {
                return List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-XX:SharedArchiveFile=" + archive);
            }
        } catch (IOException e) {
            return List.of();
        }
        return archiving.add(kind) ? List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off",
                                             "-XX:ArchiveClassesAtExit=" + archive) : List.of();
    }

    /** What a region runs, in start order: the wallet instances, the health agent, the gateway, the DNS server. */
    private List<ChildProcess> regionCommands(Region r) {
        Path rd = dir.resolve(r.id());
        List<ChildProcess> ps = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            String name = "wallet-" + instance(i);
            List<String> command = jvm("wallet");
            command.addAll(List.of(WALLET_MAIN, "--spring.config.additional-location=file:"
                                                + rd.resolve(name + ".properties")));
            ps.add(new ChildProcess(r.id() + "/" + name, command, rd.resolve(name + ".log")));
        }
        if (naive) {
            return ps;
        }
        ps.add(unitas(r.id() + "/health", "health", rd, "health", "serve", "--config",
                      rd.resolve("health.yaml").toString()));
        ps.add(unitas(r.id() + "/gateway", "gateway", rd, "gateway", "--config", rd.resolve("gateway.yaml").toString()));
        ps.add(unitas(r.id() + "/dns", "dns", rd, "dns", "--config", rd.resolve("dns.yaml").toString()));
        if (example) {
            ps.addAll(exampleCommands(r));
        }
        return ps;
    }

    private void seedControlPlane() {
        ControlClient client = ControlClient.of(control(), admin.secret());
        Topology topology = TopologyFile.read(dir.resolve("topology.yaml"));
        expectOk(() -> client.replaceTopology(DocumentText.json(layout.topologyJson()), client.state().revision(), ""));
        String rules = UnitRulesFile.toTree(UnitRulesFile.read(dir.resolve("rules.yaml"), topology)).toString();
        expectOk(() -> client.replaceRules(DocumentText.json(rules), client.state().revision(), ""));
    }

    private static void expectOk(Runnable change) {
        try {
            change.run();
        } catch (ControlException e) {
            throw new IllegalStateException("control plane refused the deployment's model: " + e.getMessage(), e);
        }
    }

    /** Starts the regions side by side, each one's processes in order, each waited for before the next. */
    private void startRegions(List<Region> regions) {
        CompletableFuture.allOf(regions.stream().map(r -> CompletableFuture.runAsync(() -> startOne(r)))
                                       .toArray(CompletableFuture[]::new)).join();
    }

    private void startOne(Region r) {
        for (ChildProcess p : regionProcesses.get(r)) {
            p.start();
            progress.accept("  " + p.name() + " (pid " + p.pid() + ", log " + dir.relativize(p.log()) + ")");
        }
        for (ChildProcess p : regionProcesses.get(r)) {
            if (isDns(p)) {
                awaitDns(r, p);
            } else {
                awaitHttp(p, readyUri(r, p), null);
            }
        }
    }

    private static boolean isDns(ChildProcess p) {
        return p.name().endsWith("/dns");
    }

    /** Waits until {@code r}'s DNS server takes TCP connections (it binds UDP first); records how long it took. */
    private void awaitDns(Region r, ChildProcess p) {
        long started = System.nanoTime();
        long deadline = started + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.alive()) {
                throw new IllegalStateException(p.name() + ": exited before it took connections on port "
                                                + layout.regionDnsPort(r) + "; the end of " + p.log() + ":\n"
                                                + p.tail(20));
            }
            try (Socket socket = new Socket()) {
                socket.connect(dns(r), 1000);
                dnsStartMillis.put(r, (System.nanoTime() - started) / 1_000_000);
                return;
            } catch (IOException e) {
                sleep(100);
            }
        }
        throw new IllegalStateException(p.name() + ": not taking connections on port " + layout.regionDnsPort(r)
                                        + " after " + START_TIMEOUT.toSeconds() + " s; see " + p.log());
    }

    private URI readyUri(Region r, ChildProcess p) {
        URI exampleReady = exampleReadyUri(r, p);
        if (exampleReady != null) {
            return exampleReady;
        }
        if (p.name().endsWith("/gateway")) {
            return gateway(r).resolve("/unitas/healthz");
        }
        if (p.name().endsWith("/health")) {
            return URI.create("http://127.0.0.1:" + layout.healthPort(r) + "/livez");
        }
        int i = p.name().charAt(p.name().length() - 1) - 'a';
        return URI.create("http://127.0.0.1:" + layout.shopPorts(r).get(i) + "/actuator/health/liveness");
    }

    /** Waits until {@code uri} answers 200; fails at once, with the log's tail, when the process died. */
    private void awaitHttp(ChildProcess p, URI uri, String token) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!p.alive()) {
                throw new IllegalStateException(p.name() + ": exited before it answered at " + uri + "; the end of "
                                                + p.log() + ":\n" + p.tail(20));
            }
            try {
                HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2));
                if (token != null) {
                    req.header("authorization", "Bearer " + token);
                }
                HttpResponse<Void> res = HTTP.send(req.build(), HttpResponse.BodyHandlers.discarding());
                if (res.statusCode() == 200) {
                    return;
                }
                last = "status " + res.statusCode();
            } catch (IOException e) {
                last = e instanceof ConnectException ? "connection refused" : e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(p.name() + ": interrupted while waiting for it", e);
            }
            sleep(200);
        }
        throw new IllegalStateException(p.name() + ": not ready at " + uri + " after " + START_TIMEOUT.toSeconds()
                                        + " s (" + last + "); see " + p.log());
    }

    @Override
    public void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<URI> entries = new ArrayList<>();
        layout.regions().forEach(r -> entries.addAll(entries(r)));
        for (URI entry : entries) {
            for (Region home : layout.regions()) {
                URI uri = entry.resolve("/wallets/" + userId(home, 0));
                awaitServed(uri + " not served", () -> HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                                                                  .build(),
                            res -> (res.statusCode() == 200 || res.statusCode() == 404)
                                   && !res.headers().firstValue("content-type").orElse("").contains("problem"),
                            deadline, timeout);
            }
        }
        if (example) {
            awaitExample(deadline, timeout);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    // ---- faults ----

    @Override
    public void killRegion(Region region) {
        List<ChildProcess> ps = processes(region);
        CompletableFuture.allOf(ps.stream().map(p -> CompletableFuture.runAsync(p::kill))
                                  .toArray(CompletableFuture[]::new)).join();
        postgres.killNine(region);
    }

    @Override
    public void killControlPlane() {
        controlProcess().kill();
    }

    @Override
    public void startControlPlane() {
        ChildProcess c = controlProcess();
        c.start();
        awaitHttp(c, control().resolve("/api/v1/whoami"), admin.secret());
    }

    @Override
    public void killDns() {
        List<ChildProcess> servers = dnsProcesses();
        CompletableFuture.allOf(servers.stream().map(p -> CompletableFuture.runAsync(p::kill))
                                       .toArray(CompletableFuture[]::new)).join();
    }

    @Override
    public void startDns() {
        dnsProcesses();
        CompletableFuture.allOf(layout.regions().stream().map(r -> CompletableFuture.runAsync(() -> {
            ChildProcess p = regionProcesses.get(r).stream().filter(DefaultProcessDeployment::isDns).findFirst()
                                            .orElseThrow();
            p.start();
            awaitDns(r, p);
        })).toArray(CompletableFuture[]::new)).join();
    }

    private List<ChildProcess> dnsProcesses() {
        if (naive) {
            throw new IllegalStateException("dns: none (expected: a unitas deployment; the naive setup runs no DNS"
                                            + " server)");
        }
        return regionProcesses.values().stream().flatMap(List::stream).filter(DefaultProcessDeployment::isDns)
                              .toList();
    }

    private ChildProcess controlProcess() {
        if (control == null) {
            throw new IllegalStateException("control plane: none (expected: a unitas deployment; the naive setup has"
                                            + " no control plane)");
        }
        return control;
    }

    @Override
    public void databaseReadOnly(Region region, boolean readOnly) {
        processes(region);
        postgres.readOnly(region, readOnly);
    }

    @Override
    public void startRegion(Region region) {
        processes(region);
        postgres.restart(region);
        startOne(region);
    }

    private List<ChildProcess> processes(Region region) {
        List<ChildProcess> ps = regionProcesses.get(region);
        if (ps == null) {
            throw new IllegalArgumentException("region: " + region + " (expected: one of " + layout.regions() + ")");
        }
        return ps;
    }

    // ---- links between regions ----

    /**
     * One directed link: {@code from}'s processes to an endpoint of {@code to}. A region's link to the Kafka broker
     * counts as a link to the center, where the broker runs (the center's own is inside its region).
     */
    private record Link(Region from, Region to, LinkProxy proxy) {
        boolean between(Region a, Region b) {
            return from.equals(a) && to.equals(b) || from.equals(b) && to.equals(a);
        }

        boolean touches(Region r) {
            return !from.equals(to) && (from.equals(r) || to.equals(r));
        }
    }

    /**
     * Starts a {@link LinkProxy} for every address a region's processes have of another region's (each gateway's
     * upstream of every other region's gateway, each wallet's home-read endpoints of every other region's instances)
     * and for each region's connections to the Kafka broker; the files name the proxies' ports.
     */
    private void startLinks() {
        if (naive) {
            return;
        }
        linksLog = LinkProxy.logTo(dir.resolve("links.log"));
        Region center = layout.regions().get(0);
        for (Region from : layout.regions()) {
            for (Region to : layout.regions()) {
                if (from.equals(to)) {
                    continue;
                }
                link(from, to, from.id() + ">" + to.id() + "/gateway", layout.linkPort(from, to, 0),
                     layout.gatewayPort(to));
                for (int j = 0; j < instances; j++) {
                    link(from, to, from.id() + ">" + to.id() + "/home-reads-" + instance(j),
                         layout.linkPort(from, to, 1 + j), layout.homeReadPort(to, j));
                }
            }
            if (kafka != null) {
                link(from, center, from.id() + ">kafka", layout.kafkaLinkPort(from), layout.kafkaRegionPort(from));
            }
        }
    }

    private void link(Region from, Region to, String name, int port, int targetPort) {
        links.add(new Link(from, to, LinkProxy.start(name, port, new InetSocketAddress("127.0.0.1", targetPort),
                                                     System::nanoTime)));
    }

    @Override
    public int partition(Region a, Region b, boolean cut) {
        processes(a);
        processes(b);
        if (a.equals(b)) {
            throw new IllegalArgumentException("partition: " + a + " from " + b + " (expected: two regions)");
        }
        int n = 0;
        for (Link l : links) {
            if (l.between(a, b)) {
                if (cut) {
                    l.proxy().cut();
                } else {
                    l.proxy().open();
                }
                n++;
            }
        }
        return n;
    }

    @Override
    public int slow(Region region, Duration latency) {
        processes(region);
        int n = 0;
        for (Link l : links) {
            if (l.touches(region)) {
                l.proxy().delay(latency);
                n++;
            }
        }
        return n;
    }

    // ---- what it is ----

    @Override
    public List<Region> regions() {
        return layout.regions();
    }

    @Override
    public URI control() {
        return URI.create("http://127.0.0.1:" + layout.controlPort());
    }

    @Override
    public boolean naive() {
        return naive;
    }

    @Override
    public URI gateway(Region region) {
        if (naive) {
            throw new IllegalStateException("gateway: none in the naive setup (expected: entries(region), its"
                                            + " wallets)");
        }
        return URI.create("http://127.0.0.1:" + layout.gatewayPort(region));
    }

    @Override
    public List<URI> wallets(Region region) {
        processes(region);
        return walletPorts(region).stream().map(p -> URI.create("http://127.0.0.1:" + p)).toList();
    }

    @Override
    public InetSocketAddress dns(Region region) {
        processes(region);
        if (naive) {
            throw new IllegalStateException("dns: none in the naive setup (expected: a unitas deployment)");
        }
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), layout.regionDnsPort(region));
    }

    @Override
    public String clientNetwork(Region region) {
        return layout.clientNetwork(region);
    }

    @Override
    public Path fallbackPool(Region region) {
        return dir.resolve(region.id()).resolve("fallback-pool.bin");
    }

    @Override
    public Optional<String> kafka() {
        return kafka == null ? Optional.empty() : Optional.of(kafka.bootstrapServers());
    }

    @Override
    public void pauseReplication(boolean paused) {
        if (kafka == null) {
            throw new IllegalStateException("replication: none (expected: a deployment started with replication"
                                            + " kafka)");
        }
        kafka.pause(paused);
    }

    @Override
    public String databaseUrl(Region region) {
        processes(region);
        return "jdbc:postgresql://127.0.0.1:" + layout.databasePort(region) + "/" + DATABASE;
    }

    @Override
    public Path deployDir() {
        return dir;
    }

    @Override
    public String userId(Region home, long seq) {
        return layout.userId(home, seq);
    }

    @Override
    public Set<Long> pids() {
        Set<Long> pids = new LinkedHashSet<>();
        if (control != null) {
            control.handles().forEach(h -> pids.add(h.pid()));
        }
        if (kafka != null && kafka.process() != null) {
            kafka.process().handles().forEach(h -> pids.add(h.pid()));
        }
        regionProcesses.values().forEach(ps -> ps.forEach(p -> p.handles().forEach(h -> pids.add(h.pid()))));
        if (postgres != null) {
            layout.regions().forEach(r -> pids.addAll(postgres.pids(r)));
        }
        return pids;
    }

    @Override
    public long residentBytes() {
        long total = 0;
        for (long pid : pids()) {
            total += residentBytes(pid);
        }
        return total;
    }

    /** One process's {@code VmRSS}, 0 when it is gone. */
    private static long residentBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone in between: it holds no memory
        }
        return 0;
    }

    private long dnsResidentBytes() {
        long total = 0;
        for (ChildProcess p : dnsProcesses()) {
            total += p.handles().mapToLong(h -> residentBytes(h.pid())).sum();
        }
        return total;
    }

    @Override
    public Duration startTime() {
        return startTime;
    }

    @Override
    public String describe() {
        StringBuilder s = new StringBuilder();
        if (naive) {
            s.append("deployment (naive: wallets and databases only, users enter at their region's wallets): ")
             .append(dir).append(" (topology.yaml; one folder per region: its rules.yaml, each wallet's config and"
                                 + " log)\n");
        } else {
            s.append("deployment: ").append(dir).append(" (topology.yaml, rules.yaml, tokens/, one folder per region:"
                                                          + " each process's config and log)\n");
            s.append(String.format("  %-12s %-26s %s%n", "control", control(), "log control/control.log; admin token"
                                                                              + " tokens/admin.token"));
        }
        for (Region r : layout.regions()) {
            if (!naive) {
                s.append(String.format("  %-12s %-26s %s%n", r.id() + "/gateway", gateway(r), "config " + r.id()
                                                                                           + "/gateway.yaml"));
                s.append(String.format("  %-12s %-26s %s%n", r.id() + "/health", "http://127.0.0.1:"
                                                             + layout.healthPort(r) + "/healthz", "config " + r.id()
                                                                                                  + "/health.yaml"));
                s.append(String.format("  %-12s %-26s %s%n", r.id() + "/dns", "dns://127.0.0.1:"
                                       + layout.regionDnsPort(r), "config " + r.id() + "/dns.yaml; the wallets keep"
                                       + " the fallback pool in " + r.id() + "/fallback-pool.bin"));
            }
            List<Integer> ports = walletPorts(r);
            for (int i = 0; i < ports.size(); i++) {
                s.append(String.format("  %-12s %-26s %s%n", r.id() + "/wallet-" + instance(i), "http://127.0.0.1:"
                                                             + ports.get(i), "config " + r.id() + "/wallet-"
                                                                             + instance(i) + ".properties"));
            }
            if (example) {
                describeExample(s, r);
            }
            s.append(String.format("  %-12s %s%n", r.id() + "/postgres", "postgresql://postgres@127.0.0.1:"
                                                            + layout.databasePort(r) + "/" + DATABASE));
        }
        if (kafka != null) {
            s.append(String.format("  %-12s %-26s %s%n", "kafka", kafka.bootstrapServers(), "config"
                                   + " kafka/server.properties; log kafka/kafka.log; the wallets replicate through it"));
        }
        if (!links.isEmpty()) {
            LinkProxy first = links.get(0).proxy();
            s.append(String.format("  %-12s %-26s %s%n", "links", "127.0.0.1:" + first.port() + ".."
                                   + links.get(links.size() - 1).proxy().port(), links.size() + " fault proxies in this"
                                   + " process, one per link between regions (" + first.name() + " on "
                                   + first.port() + "): partition and slow-region act on them; log links.log"));
        }
        s.append(String.format("%d processes, %d MB resident together; started in %.1f s%n", pids().size(),
                               residentBytes() / (1024 * 1024), startTime.toMillis() / 1000.0));
        if (!naive) {
            s.append(String.format("of which the %d DNS servers: %d MB resident, each taking connections %s ms after"
                                   + " its start%n", layout.regions().size(), dnsResidentBytes() / (1024 * 1024),
                                   layout.regions().stream().map(r -> String.valueOf(dnsStartMillis.get(r)))
                                         .collect(Collectors.joining(" / "))));
        }
        if (naive) {
            return s.toString();
        }
        Region first = layout.regions().get(0);
        Region second = layout.regions().get(1);
        String user = userId(first, 42);
        s.append("try (a ").append(first.id()).append(" user, ").append(user).append(", entering at ")
         .append(second.id()).append("'s gateway; the same key twice charges once):\n")
         .append("  curl -s -X POST -H 'Idempotency-Key: k-1' -H 'content-type: application/json' -d '{\"amount\":5}' ")
         .append(gateway(second)).append("/wallets/").append(user).append("/deposits\n")
         .append("  curl -s ").append(gateway(layout.regions().get(layout.regions().size() - 1))).append("/wallets/")
         .append(user).append('\n')
         .append("  curl -s http://127.0.0.1:").append(layout.healthPort(first)).append("/healthz\n")
         .append("  dig @127.0.0.1 -p ").append(layout.regionDnsPort(second)).append(" +subnet=")
         .append(layout.clientNetwork(second)).append(" SRV ").append(ENTRY_SERVICE).append("   # ")
         .append(second.id()).append("'s gateway first\n");
        if (example) {
            describeExampleTry(s);
        }
        return s.toString();
    }

    // ---- the example service pair ----

    /**
     * The region's files of the example pair: each order and inventory instance's properties, and the config of the
     * region's gateway of the example.
     */
    private void writeExampleFiles(Region r) {
        for (Kind kind : Kind.values()) {
            for (int i = 0; i < instances; i++) {
                write(r.id() + "/" + kind.serviceId() + "-" + instance(i) + ".properties", exampleProperties(kind, r, i));
            }
        }
        write(r.id() + "/example-gateway.yaml", exampleGatewayYaml(r));
    }

    /** What the in-process playground starts an instance with ({@link ExampleServices#properties}), as a file. */
    private String exampleProperties(Kind kind, Region r, int i) {
        String name = kind.serviceId() + "-" + instance(i);
        Map<Region, List<Integer>> inventories = new LinkedHashMap<>();
        layout.regions().forEach(x -> inventories.put(x, examplePorts(Kind.INVENTORY, x)));
        StringBuilder p = new StringBuilder("# " + r.id() + "'s " + kind.serviceId() + " instance " + instance(i)
                                            + " of the example pair"
                                            + (kind == Kind.ORDER ? "; its registry lists every region's inventory"
                                                                    + " instances" : "") + "\n");
        ExampleServices.properties(kind, r, kind.serviceId() + "-" + r.id() + "-" + instance(i),
                                   examplePorts(kind, r).get(i), inventories, dir.resolve("topology.yaml"),
                                   dir.resolve("rules.yaml"), control().toString(), dir.resolve("tokens/viewer.token"),
                                   dir.resolve(r.id() + "/" + name + ".state.json"))
                       .forEach((k, v) -> p.append(k).append('=').append(v).append('\n'));
        // the liveness probe the example gateway checks and the start waits on (the jar has the wallet's actuator)
        return p.append("management.endpoint.health.probes.enabled=true\n").toString();
    }

    /**
     * The region's gateway of the example. A gateway's upstreams are per region, not per path, so the region's own
     * gateway cannot send {@code /example/...} to other endpoints than its wallets: the pair gets a gateway of its own
     * (the same {@code unitas gateway}, the same rules from the control plane), in front of the region's order
     * instances, the other regions' example gateways its peers. It follows the control plane with the viewer's token:
     * reporting the peers it cannot reach is the region's gateway's job.
     */
    private String exampleGatewayYaml(Region here) {
        StringBuilder y = new StringBuilder("# " + here.id() + "'s gateway of the example: its order instances, and the"
                                            + " other regions' example gateways.\n");
        y.append("region: ").append(here.id()).append('\n')
         .append("listen: 127.0.0.1:").append(layout.exampleGatewayPort(here)).append('\n')
         .append("upstreams:\n");
        for (Region r : layout.regions()) {
            List<String> endpoints = r.equals(here)
                    ? examplePorts(Kind.ORDER, r).stream().map(p -> "'127.0.0.1:" + p + "'").toList()
                    : List.of("'127.0.0.1:" + layout.exampleGatewayPort(r) + "'");
            y.append("  ").append(r.id()).append(": {endpoints: [").append(String.join(", ", endpoints))
             .append("], health_check: ").append(r.equals(here) ? LIVENESS : "/unitas/healthz").append("}\n");
        }
        return y.append("control_plane:\n")
                .append("  url: ").append(control()).append('\n')
                .append("  token_file: '").append(dir.resolve("tokens/viewer.token")).append("'\n")
                .append("  state_file: '").append(dir.resolve(here.id() + "/example-gateway.state.json")).append("'\n")
                .append("health_check: {path: /livez, interval: 1s}\n")
                .append("timeouts: {connect: 1s, response: 15s}   # an order waits up to 10 s for its inventory\n")
                .append("trusted_peers: [127.0.0.1/32]\n")
                .append("access_log: off\n").toString();
    }

    private List<Integer> examplePorts(Kind kind, Region r) {
        return (kind == Kind.ORDER ? layout.exampleOrderPorts(r) : layout.exampleInventoryPorts(r)).subList(0, instances);
    }

    /** The region's inventory instances, its order instances, its gateway of the example, in start order. */
    private List<ChildProcess> exampleCommands(Region r) {
        Path rd = dir.resolve(r.id());
        List<ChildProcess> ps = new ArrayList<>();
        for (Kind kind : List.of(Kind.INVENTORY, Kind.ORDER)) {
            for (int i = 0; i < instances; i++) {
                String name = kind.serviceId() + "-" + instance(i);
                List<String> command = jvm("example");
                command.addAll(List.of(EXAMPLE_MAIN, kind.serviceId(), "--spring.config.additional-location=file:"
                                                                      + rd.resolve(name + ".properties")));
                ps.add(new ChildProcess(r.id() + "/" + name, command, rd.resolve(name + ".log")));
            }
        }
        List<String> gateway = jvm("gateway");
        gateway.addAll(List.of(UNITAS_MAIN, "gateway", "--config", rd.resolve("example-gateway.yaml").toString()));
        ps.add(new ChildProcess(r.id() + "/example-gateway", gateway, rd.resolve("example-gateway.log")));
        return ps;
    }

    /** Where a process of the example answers 200 once it runs; null for the region's other processes. */
    private URI exampleReadyUri(Region r, ChildProcess p) {
        String name = p.name().substring(p.name().indexOf('/') + 1);
        if (name.equals("example-gateway")) {
            return exampleGateway(r).resolve("/unitas/healthz");
        }
        for (Kind kind : Kind.values()) {
            if (name.startsWith(kind.serviceId() + "-")) {
                int i = name.charAt(name.length() - 1) - 'a';
                return URI.create("http://127.0.0.1:" + examplePorts(kind, r).get(i) + LIVENESS);
            }
        }
        return null;
    }

    /**
     * Waits until an order of a user of each region, entering at each region's example gateway, is served (201). The
     * services follow the control plane on their own, so they may see a region able to serve after the gateways do;
     * the first order also builds the order instance's load balancer and client.
     */
    private void awaitExample(long deadline, Duration timeout) {
        for (Region entry : layout.regions()) {
            for (Region home : layout.regions()) {
                URI uri = exampleGateway(entry).resolve("/orders");
                awaitServed("an order of a " + home + " user at " + uri + " not served",
                            () -> HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                                             .header("x-user-id", userId(home, 0))
                                             .header("content-type", "application/json")
                                             .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"ready\"}"))
                                             .build(),
                            res -> res.statusCode() == 201, deadline, timeout);
            }
        }
    }

    /**
     * Sends {@code request} every 200 ms until {@code served} accepts its answer; {@link IllegalStateException} saying
     * {@code what} and the last answer after {@code deadline}.
     */
    private static void awaitServed(String what, Supplier<HttpRequest> request,
                                    Predicate<HttpResponse<String>> served, long deadline, Duration timeout) {
        String last = "no answer";
        while (true) {
            try {
                HttpResponse<String> res = HTTP.send(request.get(), HttpResponse.BodyHandlers.ofString());
                if (served.test(res)) {
                    return;
                }
                last = res.statusCode() + " " + res.body();
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("deployment: interrupted while waiting", e);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("deployment: " + what + " after " + timeout + " (last: " + last + ")");
            }
            sleep(200);
        }
    }

    @Override
    public URI exampleGateway(Region region) {
        if (!example) {
            throw new IllegalStateException("example: not running (expected: a deployment started with example on)");
        }
        return URI.create("http://127.0.0.1:" + layout.exampleGatewayPort(region));
    }

    private void describeExample(StringBuilder s, Region r) {
        for (Kind kind : Kind.values()) {
            List<Integer> ports = examplePorts(kind, r);
            for (int i = 0; i < ports.size(); i++) {
                String name = kind.serviceId() + "-" + instance(i);
                s.append(String.format("  %-12s %-26s %s%n", r.id() + "/" + name, "http://127.0.0.1:" + ports.get(i),
                                       "config " + r.id() + "/" + name + ".properties"));
            }
        }
        s.append(String.format("  %-12s %-26s %s%n", r.id() + "/example-gateway", exampleGateway(r), "config "
                               + r.id() + "/example-gateway.yaml; POST /orders with x-user-id"));
    }

    private void describeExampleTry(StringBuilder s) {
        Region first = layout.regions().get(0);
        Region second = layout.regions().get(1);
        String user = userId(first, 42);
        s.append("the example pair (an order of the ").append(first.id()).append(" user ").append(user)
         .append(", entering at ").append(second.id()).append("'s example gateway, served in ").append(first.id())
         .append(": the answer names the region and the inventory instance):\n")
         .append("  curl -s -X POST -H 'x-user-id: ").append(user)
         .append("' -H 'content-type: application/json' -d '{\"sku\":\"book\"}' ").append(exampleGateway(second))
         .append("/orders\n");
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (Thread.currentThread() != stopOnExit) {
            try {
                Runtime.getRuntime().removeShutdownHook(stopOnExit);
            } catch (IllegalStateException e) {
                // the JVM is exiting: the hook runs (or ran) close, which returns at once
            }
        }
        List<ChildProcess> all = new ArrayList<>();
        regionProcesses.values().forEach(all::addAll);
        if (control != null) {
            all.add(control);
        }
        CompletableFuture.allOf(all.stream().map(p -> CompletableFuture.runAsync(p::stop))
                                   .toArray(CompletableFuture[]::new)).join();
        if (kafka != null) {
            kafka.stop(); // after the wallets, which flush to it as they stop
        }
        links.forEach(l -> l.proxy().close()); // after every process that sends through them
        if (linksLog != null) {
            try {
                linksLog.close();
            } catch (Exception e) {
                // closing a log file: nothing left to do with it
            }
        }
        if (postgres != null) {
            postgres.close();
        }
    }
}
