import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;

/**
 * Time from a rule change (PUT /api/v1/rules, sent) to its arrival at a watching SSE client, over N changes, against
 * an in-process control plane with the embedded store (fsync before the 200) or, with --etcd URL, the etcd store.
 * Run: benchmarks/control/run.sh [--changes N] [--etcd http://127.0.0.1:2379]
 */
public final class WatchLatency {

    private static final String TOPOLOGY = "{\"regions\":[{\"id\":\"cn\"},{\"id\":\"eu\"}]}";
    private static final String RULES = "{\"units\":[{\"id\":\"u-a\",\"region\":\"cn\"},{\"id\":\"u-b\",\"region\":\"eu\"}],"
            + "\"key\":{\"sources\":[{\"header\":\"x-user-id\"}],\"transform\":\"mod 100\"},"
            + "\"ranges\":[{\"range\":\"0~49\",\"unit\":\"u-a\"},{\"range\":\"50~99\",\"unit\":\"u-b\"}],"
            + "\"gray\":{\"u-a\":[{\"version\":\"%d\"}]}}";

    public static void main(String[] args) throws Exception {
        int changes = 200;
        String etcd = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--changes" -> changes = Integer.parseInt(args[++i]);
                case "--etcd" -> etcd = args[++i];
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("unitas-watch-latency");
        ControlToken admin = ControlToken.generate("bench", Role.ADMIN);
        Path tokens = Files.writeString(dir.resolve("tokens"), admin.fileLine() + "\n");
        ControlServer.Builder builder = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(tokens);
        if (etcd != null) {
            builder.etcd(List.of(java.net.URI.create(etcd))).etcdPrefix("/bench-" + System.nanoTime() + "/");
        }
        try (ControlServer server = builder.start()) {
            RawClient client = RawClient.of(server.uri(), admin.secret());
            check(client.put("/api/v1/topology", TOPOLOGY, client.get("/api/v1/state").revision()));
            BlockingQueue<long[]> arrivals = new LinkedBlockingQueue<>();
            try (AutoCloseable watch = client.watch(-1, e -> arrivals.add(new long[] {e.revision(), System.nanoTime()}))) {
                arrivals.poll(10, TimeUnit.SECONDS); // the current state
                for (int warm = 0; warm < 50; warm++) {
                    change(client, warm, arrivals);
                }
                List<Double> millis = new ArrayList<>();
                for (int i = 0; i < changes; i++) {
                    millis.add(change(client, 1_000 + i, arrivals) / 1e6);
                }
                Collections.sort(millis);
                System.out.printf("store=%s changes=%d  median %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms%n",
                        etcd == null ? "embedded" : "etcd", changes, at(millis, .5), at(millis, .9), at(millis, .99),
                        millis.get(millis.size() - 1));
            }
        }
    }

    /** Sends one rule change and returns the nanoseconds until the watcher has its revision. */
    private static long change(RawClient client, int version, BlockingQueue<long[]> arrivals) throws Exception {
        long sent = System.nanoTime();
        ControlResponse res = client.send("PUT", "/api/v1/rules", String.format(RULES, version),
                                          Map.of("If-Match", "\"" + lastRevision + "\""));
        check(res);
        lastRevision = res.json().path("revision").asLong();
        while (true) {
            long[] e = arrivals.poll(10, TimeUnit.SECONDS);
            if (e == null) {
                throw new IllegalStateException("revision " + lastRevision + " never arrived");
            }
            if (e[0] == lastRevision) {
                return e[1] - sent;
            }
        }
    }

    private static long lastRevision = 1;

    private static void check(ControlResponse res) {
        if (!res.ok()) {
            throw new IllegalStateException(res.status() + " " + res.body());
        }
    }

    private static double at(List<Double> sorted, double q) {
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size())));
    }
}
