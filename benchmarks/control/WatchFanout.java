import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.wire.DocumentText;
import io.unitas.control.client.wire.FenceRequest;

/**
 * The watch at scale: N concurrent watchers (default 5,000) of a control plane in a process of its own, with
 * health reports of three regions arriving as in `./unitas up` (about 6 revisions a second), and a config change
 * (a fence added or lifted) every 2 s. Prints, over all watchers and changes, how long a change took from its
 * commit being sent to its arrival at each watcher (p50, p99, max, and how many watchers got every change), and the
 * control plane's CPU (user + system, from /proc) per second of wall time while it served them.
 *
 * With --relays R, R relays (each a process of its own, watching the control plane) serve the watchers, spread
 * evenly, and the relays' CPU is printed with their cost per event written. The watchers' connections are spread
 * over one JDK HTTP client per 500 (each client has one selector thread; one for all would measure that thread).
 *
 * Run: benchmarks/control/fanout.sh [--watchers N] [--changes N] [--parts config,health] [--relays R]
 */
public final class WatchFanout {

    private static final String TOPOLOGY = "{\"regions\":[{\"id\":\"cn\"},{\"id\":\"eu\"},{\"id\":\"us\"}]}";
    private static final String RULES = "{\"units\":[{\"id\":\"u-a\",\"region\":\"cn\"},{\"id\":\"u-b\",\"region\":\"eu\"},"
            + "{\"id\":\"u-c\",\"region\":\"us\"}],\"key\":{\"sources\":[{\"header\":\"x-user-id\"}],"
            + "\"transform\":\"mod 100\"},\"ranges\":[{\"range\":\"0~32\",\"unit\":\"u-a\"},"
            + "{\"range\":\"33~65\",\"unit\":\"u-b\"},{\"range\":\"66~99\",\"unit\":\"u-c\"}]}";

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--serve")) {
            serve(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]));
            return;
        }
        if (args.length > 0 && args[0].equals("--relay")) {
            relay(URI.create(args[1]), args[2], Path.of(args[3]), Path.of(args[4]));
            return;
        }
        int watchers = 5_000;
        int changes = 10;
        String parts = "config,health";
        int relays = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--watchers" -> watchers = Integer.parseInt(args[++i]);
                case "--changes" -> changes = Integer.parseInt(args[++i]);
                case "--parts" -> parts = args[++i];
                case "--relays" -> relays = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("unitas-watch-fanout");
        ControlToken admin = ControlToken.generate("bench", Role.ADMIN);
        Files.writeString(dir.resolve("tokens"), admin.fileLine() + "\n");
        Path portFile = dir.resolve("port");
        Process control = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-cp", System.getProperty("java.class.path"), System.getProperty("unitas.bench.source"),
                "--serve",
                dir.resolve("data").toString(), dir.resolve("tokens").toString(), portFile.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("control.log").toFile()).start();
        Runtime.getRuntime().addShutdownHook(new Thread(control::destroyForcibly)); // run() ends with System.exit
        try {
            while (!Files.exists(portFile) || Files.readString(portFile).isBlank()) {
                if (!control.isAlive()) {
                    throw new IllegalStateException("the control plane did not start: " + dir.resolve("control.log"));
                }
                Thread.sleep(100);
            }
            URI uri = URI.create("http://127.0.0.1:" + Files.readString(portFile).strip());
            List<Process> relayProcesses = new ArrayList<>();
            List<URI> served = new ArrayList<>();
            for (int r = 0; r < relays; r++) {
                Path relayPort = dir.resolve("relay-" + r + ".port");
                Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx1g", "-cp", System.getProperty("java.class.path"),
                        System.getProperty("unitas.bench.source"), "--relay", uri.toString(), admin.secret(),
                        dir.resolve("tokens").toString(), relayPort.toString())
                        .redirectErrorStream(true).redirectOutput(dir.resolve("relay-" + r + ".log").toFile()).start();
                Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
                relayProcesses.add(p);
                while (!Files.exists(relayPort) || Files.readString(relayPort).isBlank()) {
                    if (!p.isAlive()) {
                        throw new IllegalStateException("a relay did not start: " + dir.resolve("relay-" + r + ".log"));
                    }
                    Thread.sleep(100);
                }
                served.add(URI.create("http://127.0.0.1:" + Files.readString(relayPort).strip()));
            }
            run(control.pid(), relayProcesses.stream().map(Process::pid).toList(), uri,
                served.isEmpty() ? List.of(uri) : served, admin, watchers, changes, parts);
        } finally {
            control.destroyForcibly();
        }
    }

    /** A relay's process: limits raised for the benchmark's watchers. */
    private static void relay(URI upstream, String secret, Path tokens, Path portFile) throws Exception {
        io.unitas.control.Relay relay = io.unitas.control.Relay.builder().upstream(upstream)
                .upstreamToken(() -> secret).tokens(tokens).port(0)
                .watchLimits(20_000, 20_000, 8L << 20, Duration.ofMillis(250)).maxConnections(21_000).start();
        Files.writeString(portFile, Integer.toString(relay.port()));
        Thread.currentThread().join();
    }

    /** The control plane's process: limits raised for the benchmark's watchers. */
    private static void serve(Path data, Path tokens, Path portFile) throws Exception {
        ControlServer server = ControlServer.builder().port(0).dataDir(data).tokens(tokens)
                .watchLimits(20_000, 20_000, 8L << 20, Duration.ofMillis(250)).maxConnections(21_000).start();
        Files.writeString(portFile, Integer.toString(server.port()));
        Thread.currentThread().join();
    }

    private static void run(long pid, List<Long> relayPids, URI uri, List<URI> served, ControlToken admin,
                            int watchers, int changes, String parts) throws Exception {
        RawClient client = RawClient.of(uri, admin.secret());
        client.replaceTopology(DocumentText.json(TOPOLOGY), client.state().revision(), "bench");
        client.replaceRules(DocumentText.json(RULES), client.state().revision(), "bench");

        Map<Long, List<Long>> arrivals = new ConcurrentHashMap<>();
        AtomicInteger connected = new AtomicInteger();
        List<HttpClient> clients = new ArrayList<>();
        for (int c = 0; c < (watchers + 499) / 500; c++) {
            clients.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
        }
        java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
        CountDownLatch allConnected = new CountDownLatch(watchers);
        long start = System.nanoTime();
        for (int i = 0; i < watchers; i++) {
            HttpClient http = clients.get(i / 500);
            HttpRequest request = HttpRequest.newBuilder(served.get(i % served.size())
                                                               .resolve("/api/v1/watch?parts=" + parts))
                    .header("Authorization", "Bearer " + admin.secret()).build();
            http.sendAsync(request, HttpResponse.BodyHandlers.fromLineSubscriber(new Flow.Subscriber<String>() {
                @Override
                public void onSubscribe(Flow.Subscription s) {
                    connected.incrementAndGet();
                    allConnected.countDown();
                    s.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(String line) {
                    if (line.startsWith("id: ")) {
                        long at = System.nanoTime();
                        received.incrementAndGet();
                        arrivals.computeIfAbsent(Long.parseLong(line.substring(4)),
                                                 r -> Collections.synchronizedList(new ArrayList<>())).add(at);
                    }
                }

                @Override
                public void onError(Throwable t) {
                    System.err.println("watcher failed: " + t);
                }

                @Override
                public void onComplete() {}
            }));
            if (i % 200 == 199) {
                Thread.sleep(20); // do not overrun the listen backlog
            }
        }
        if (!allConnected.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("only " + connected.get() + " of " + watchers + " watchers connected");
        }
        System.out.printf("%d watchers connected in %.1f s%n", watchers, (System.nanoTime() - start) / 1e9);

        // health as in ./unitas up: three regions, a report each about every 500 ms
        RawClient reporter = RawClient.of(uri, admin.secret());
        Thread health = new Thread(() -> {
            long seq = 0;
            while (!Thread.currentThread().isInterrupted()) {
                seq++;
                try {
                    for (String region : List.of("cn", "eu", "us")) {
                        reporter.send("PUT", "/api/v1/health/" + region, "{\"region\":\"" + region + "\",\"sequence\":" + seq
                                + ",\"observed_at\":\"" + Instant.now() + "\",\"healthy\":true,\"writable\":true,"
                                + "\"replication_lag_ms\":" + (seq % 50) + ",\"score\":1.0,\"reasons\":[],"
                                + "\"checks\":{}}", Map.of());
                    }
                } catch (IllegalStateException e) {
                    return; // interrupted: the measurement is over
                }
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "health");
        health.setDaemon(true);
        health.start();
        Thread.sleep(3_000);

        long cpuBefore = cpuTicks(pid);
        long relayCpuBefore = 0;
        for (long r : relayPids) {
            relayCpuBefore += cpuTicks(r);
        }
        long receivedBefore = received.get();
        long wallBefore = System.nanoTime();
        List<Double> millis = new ArrayList<>();
        int complete = 0;
        for (int i = 0; i < changes; i++) {
            long sent = System.nanoTime();
            long revision = (i % 2 == 0 ? client.fence(FenceRequest.of(List.of("u-b"), "bench"))
                                        : client.liftFence("u-b", "bench")).revision();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (arrivals.getOrDefault(revision, List.of()).size() < watchers && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            List<Long> got = arrivals.getOrDefault(revision, List.of());
            synchronized (got) {
                got.forEach(at -> millis.add((at - sent) / 1e6));
                if (got.size() >= watchers) {
                    complete++;
                }
            }
            Thread.sleep(Math.max(0, 2_000 - (System.nanoTime() - sent) / 1_000_000));
        }
        double wall = (System.nanoTime() - wallBefore) / 1e9;
        double cpu = (cpuTicks(pid) - cpuBefore) / 100.0; // USER_HZ
        long relayCpuAfter = 0;
        for (long r : relayPids) {
            relayCpuAfter += cpuTicks(r);
        }
        double relayCpu = (relayCpuAfter - relayCpuBefore) / 100.0;
        long events = received.get() - receivedBefore;
        health.interrupt();
        Collections.sort(millis);
        System.out.printf("watchers=%d parts=%s changes=%d relays=%d (every 2 s, beside ~6 health revisions/s)%n",
                          watchers, parts, changes, relayPids.size());
        System.out.printf("change -> watcher: p50 %.0f ms  p99 %.0f ms  max %.0f ms  (%d deliveries; %d of %d changes "
                          + "reached every watcher)%n", at(millis, .5), at(millis, .99),
                          millis.isEmpty() ? 0 : millis.get(millis.size() - 1), millis.size(), complete, changes);
        System.out.printf("control plane CPU: %.2f cores (%.1f s over %.1f s of wall time)%n", cpu / wall, cpu, wall);
        System.out.printf("events received by the watchers: %d (%.0f a second)%n", events, events / wall);
        if (!relayPids.isEmpty()) {
            System.out.printf("relays' CPU: %.2f cores (%.1f s), %.1f us per event written%n", relayCpu / wall,
                              relayCpu, relayCpu * 1e6 / Math.max(1, events));
        } else {
            System.out.printf("control plane: %.1f us per event written%n", cpu * 1e6 / Math.max(1, events));
        }
        System.out.printf("machine load average: %s%n", Files.readString(Path.of("/proc/loadavg")).strip());
        System.exit(0);
    }

    /** utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15). */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static double at(List<Double> sorted, double q) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size())));
    }
}
