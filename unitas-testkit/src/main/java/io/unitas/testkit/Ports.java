package io.unitas.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports of 127.0.0.1 for test servers, taken outside the kernel's ephemeral range and never handed out twice in one
 * JVM. A port from the ephemeral range (what binding port 0 gives) becomes the source port of any outgoing
 * connection the moment its server stops, so a server restarted on it by a failure drill may find it taken.
 */
public final class Ports {

    private static final Path EPHEMERAL = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int LOWEST = 10_000;
    private static final int[] SPAN = span();
    private static int cursor = SPAN[0] + ThreadLocalRandom.current().nextInt(SPAN[1] - SPAN[0]);

    private Ports() {}

    /** A port that was free a moment ago. */
    public static int free() {
        return range(1);
    }

    /** The first of {@code count} consecutive ports that were all free a moment ago. */
    public static synchronized int range(int count) {
        for (int tried = 0; tried < SPAN[1] - SPAN[0]; tried += count) {
            if (cursor + count > SPAN[1]) {
                cursor = SPAN[0];
            }
            int from = cursor;
            cursor += count;
            if (free(from, count)) {
                return from;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports in " + SPAN[0] + ".." + (SPAN[1] - 1));
    }

    private static boolean free(int from, int count) {
        for (int port = from; port < from + count; port++) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** [first, end) below the ephemeral range, or above it when too little room is left below. */
    private static int[] span() {
        int low = 32_768;
        int high = 60_999;
        try {
            String[] range = Files.readString(EPHEMERAL).trim().split("\\s+");
            low = Integer.parseInt(range[0]);
            high = Integer.parseInt(range[1]);
        } catch (IOException | RuntimeException e) {
            // Not Linux, or no procfs: Linux's default range.
        }
        if (low - LOWEST >= 5_000) {
            return new int[] {LOWEST, low};
        }
        if (65_536 - (high + 1) >= 1_000) {
            return new int[] {high + 1, 65_536};
        }
        return new int[] {LOWEST, 65_536};
    }
}
