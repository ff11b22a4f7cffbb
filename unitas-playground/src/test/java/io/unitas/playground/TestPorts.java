package io.unitas.playground;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** A first port whose whole playground range (50 ports) is free on 127.0.0.1 right now. */
final class TestPorts {

    private TestPorts() {}

    static int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int from = 20_000 + 50 * ThreadLocalRandom.current().nextInt(600);
            if (free(from, 50)) {
                return from;
            }
        }
        throw new IllegalStateException("no free range of 50 ports in 20000..50000");
    }

    private static boolean free(int from, int count) {
        for (int p = from; p < from + count; p++) {
            try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
