package io.unitas.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback to one port, whose connections open so far can be stalled: their bytes stop moving both
 * ways, as on a link that hangs without closing, while new connections pass. In front of a Redis primary it stalls
 * a replica's replication link and leaves the primary reachable to a probe.
 */
final class StallableLink implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Pipe> pipes = new CopyOnWriteArrayList<>();

    StallableLink(int targetPort) throws IOException {
        this.target = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "stallable-link-accept");
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Stops the bytes of every connection open now; later ones are not stalled. */
    void stall() {
        pipes.forEach(p -> p.stalled(true));
    }

    /** Lets the stalled bytes move again. */
    void resume() {
        pipes.forEach(p -> p.stalled(false));
    }

    private void accept() {
        try {
            while (true) {
                Socket in = server.accept();
                Socket out = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(in);
                sockets.add(out);
                start(new Pipe(in.getInputStream(), out.getOutputStream()));
                start(new Pipe(out.getInputStream(), in.getOutputStream()));
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void start(Pipe pipe) {
        pipes.add(pipe);
        Thread t = new Thread(pipe, "stallable-link-pipe");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
        resume();
    }

    /** One direction of one connection. */
    private static final class Pipe implements Runnable {
        private final InputStream from;
        private final OutputStream to;
        private boolean stalled;

        Pipe(InputStream from, OutputStream to) {
            this.from = from;
            this.to = to;
        }

        synchronized void stalled(boolean stalled) {
            this.stalled = stalled;
            notifyAll();
        }

        @Override
        public void run() {
            byte[] buffer = new byte[16 * 1024];
            try {
                for (int n; (n = from.read(buffer)) >= 0; ) {
                    synchronized (this) {
                        while (stalled) {
                            wait(); // the bytes read are held here, as a hung link holds them
                        }
                    }
                    to.write(buffer, 0, n);
                    to.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            }
        }
    }
}
