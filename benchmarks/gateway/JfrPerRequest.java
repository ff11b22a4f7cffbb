import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reads a flight recording of a gateway under a known number of requests and prints what does not depend on the
 * machine's load: the bytes its event loops allocated per request (exact, from {@code jdk.ThreadAllocationStatistics}
 * at the recording's start and end), what kinds of objects they were mostly (from {@code jdk.ObjectAllocationSample}
 * events), and where the event loops spent their CPU samples ({@code jdk.ExecutionSample}).
 *
 * <p>Run (the JDK's single-file launcher): {@code java benchmarks/gateway/JfrPerRequest.java recording.jfr REQUESTS}.
 * {@code benchmarks/gateway/profile.sh} makes the recording and runs this.
 */
public final class JfrPerRequest {

    /** The gateway's event loops are named {@code unitas-gateway-N-M}. */
    private static final Pattern LOOP = Pattern.compile("unitas-gateway-\\d+-\\d+");
    private static final int TOP = 20;

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java JfrPerRequest.java RECORDING.jfr REQUESTS");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        long requests = Long.parseLong(args[1]);
        Map<String, long[]> allocated = new HashMap<>(); // thread -> {min, max}
        Map<String, Long> sampledBytes = new HashMap<>();
        Map<String, Integer> cpu = new HashMap<>();
        Map<String, Integer> cpuSelf = new HashMap<>();
        Map<String, Integer> cpuPart = new HashMap<>();
        long sampledTotal = 0;
        int cpuTotal = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            switch (e.getEventType().getName()) {
                case "jdk.ThreadAllocationStatistics" -> {
                    RecordedThread t = e.getThread("thread");
                    if (t != null && isLoop(t)) {
                        long bytes = e.getLong("allocated");
                        allocated.merge(t.getJavaName(), new long[] {bytes, bytes},
                                        (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
                    }
                }
                case "jdk.ObjectAllocationSample" -> {
                    if (isLoop(e.getThread("eventThread"))) {
                        String site = e.getClass("objectClass").getName() + " at " + site(e.getStackTrace());
                        sampledBytes.merge(site, 1L, Long::sum);
                        sampledTotal++;
                    }
                }
                case "jdk.ExecutionSample" -> {
                    if (isLoop(e.getThread("sampledThread"))) {
                        cpuTotal++;
                        RecordedStackTrace st = e.getStackTrace();
                        if (st != null && !st.getFrames().isEmpty()) {
                            cpuSelf.merge(name(st.getFrames().get(0)), 1, Integer::sum);
                            cpuPart.merge(part(st.getFrames()), 1, Integer::sum);
                            cpu.merge(site(st), 1, Integer::sum);
                        }
                    }
                }
                default -> { }
            }
        }
        long bytes = allocated.values().stream().mapToLong(a -> a[1] - a[0]).sum();
        System.out.printf("requests: %d; event loops: %s%n", requests, allocated.keySet());
        System.out.printf("allocated by the event loops: %d bytes, %.0f bytes per request%n", bytes,
                          (double) bytes / requests);
        // A sample is taken where a thread's allocation buffer runs out: a few hundred in ten seconds, enough to
        // point at the kinds of objects made most, not to weigh them (the samples' weights are unreliable).
        System.out.printf("%nallocation samples by class and the gateway's frame that made it (%d samples):%n",
                          sampledTotal);
        for (Map.Entry<String, Long> en : top(sampledBytes)) {
            System.out.printf("%5.1f%%  %s%n", 100.0 * en.getValue() / Math.max(1, sampledTotal), en.getKey());
        }
        System.out.printf("%nCPU samples of the event loops by the part of the work they fall in (self time; %d samples):%n",
                          cpuTotal);
        for (Map.Entry<String, Integer> en : top(cpuPart)) {
            System.out.printf("%5.1f%%  %s%n", 100.0 * en.getValue() / Math.max(1, cpuTotal), en.getKey());
        }
        System.out.printf("%nCPU samples of the event loops, by the gateway's frame on the stack (%d samples):%n",
                          cpuTotal);
        for (Map.Entry<String, Integer> en : top(cpu)) {
            System.out.printf("%5.1f%%  %s%n", 100.0 * en.getValue() / cpuTotal, en.getKey());
        }
        System.out.printf("%nCPU samples by the method running (self time):%n");
        for (Map.Entry<String, Integer> en : top(cpuSelf)) {
            System.out.printf("%5.1f%%  %s%n", 100.0 * en.getValue() / cpuTotal, en.getKey());
        }
    }

    /**
     * The part of the work a sample's running method belongs to, by its class; a JDK method (an array copy, an
     * atomic) counts for the first caller outside the JDK.
     */
    private static String part(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            if (!f.isJavaFrame()) {
                continue;
            }
            String c = f.getMethod().getType().getName();
            if (c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.")) {
                continue;
            }
            if (c.startsWith("io.micrometer.") || c.startsWith("io.prometheus.") || c.endsWith(".GatewayMetrics")
                || c.contains(".GatewayMetrics$")) {
                return "metrics (Micrometer, access log)";
            }
            if (c.startsWith("io.unitas.")) {
                return c.startsWith("io.unitas.gateway.") && !c.contains("Dispatcher") && !c.contains("Decision")
                       && !c.contains("RequestView") && !c.contains("TrustedPeers")
                       ? "the gateway's proxy code (headers, exchange, pools, timeouts)"
                       : "routing decision (dispatcher, rules, router)";
            }
            if (c.startsWith("io.netty.buffer.") || c.startsWith("io.netty.util.Recycler")
                || c.startsWith("io.netty.util.internal.") || c.startsWith("io.netty.util.concurrent.FastThreadLocal")) {
                return "Netty: buffers, allocation, thread-locals";
            }
            if (c.startsWith("io.netty.handler.codec.http.") && (c.contains("Decoder") || c.contains("Codec$Decoder"))) {
                return "Netty: HTTP/1.1 parsing";
            }
            if (c.startsWith("io.netty.handler.codec.http.") && c.contains("Encoder")) {
                return "Netty: HTTP/1.1 encoding";
            }
            if (c.startsWith("io.netty.handler.codec.http.") || c.startsWith("io.netty.handler.codec.DefaultHeaders")
                || c.startsWith("io.netty.util.AsciiString") || c.startsWith("io.netty.handler.codec.Header")) {
                return "Netty: header maps, validation, ASCII strings";
            }
            if (c.startsWith("io.netty.handler.codec.")) {
                return "Netty: codec framework (ByteToMessageDecoder, lists)";
            }
            if (c.startsWith("io.netty.channel.epoll.") || c.startsWith("io.netty.channel.unix.")
                || c.startsWith("io.netty.channel.ChannelOutboundBuffer")) {
                return "Netty: sockets (epoll transport, outbound buffers)";
            }
            if (c.startsWith("io.netty.channel.") || c.startsWith("io.netty.util.concurrent.")) {
                return "Netty: pipeline, event loop, channel config";
            }
            return "other: " + c;
        }
        return "JDK only";
    }

    private static boolean isLoop(RecordedThread t) {
        return t != null && t.getJavaName() != null && LOOP.matcher(t.getJavaName()).matches();
    }

    /** The innermost frame of the gateway's own code, else the innermost frame. */
    private static String site(RecordedStackTrace st) {
        if (st == null || st.getFrames().isEmpty()) {
            return "?";
        }
        for (RecordedFrame f : st.getFrames()) {
            if (f.isJavaFrame() && f.getMethod().getType().getName().startsWith("io.unitas.")) {
                return name(f) + ":" + f.getLineNumber();
            }
        }
        return name(st.getFrames().get(0));
    }

    private static String name(RecordedFrame f) {
        String type = f.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
    }

    private static <V extends Comparable<V>> List<Map.Entry<String, V>> top(Map<String, V> m) {
        return m.entrySet().stream().sorted(Map.Entry.<String, V>comparingByValue().reversed()).limit(TOP).toList();
    }
}
