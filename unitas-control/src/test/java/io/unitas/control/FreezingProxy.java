package io.unitas.control;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a server that can make its open connections half-open: {@link #freeze()} stops
 * forwarding on every connection open now without closing any (as when a host vanishes without a FIN), while new
 * connections are forwarded as usual.
 */
final class FreezingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Pipe> pipes = new CopyOnWriteArrayList<>();

    FreezingProxy(URI target) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "freezing-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Stops forwarding on every connection open now; they stay open. */
    void freeze() {
        pipes.forEach(p -> p.frozen = true);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                pipes.add(new Pipe(client, server));
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        pipes.forEach(p -> p.frozen = false);
        listener.close();
        for (Pipe p : pipes) {
            p.close();
        }
    }

    private static final class Pipe {
        final Socket client;
        final Socket server;
        volatile boolean frozen;

        Pipe(Socket client, Socket server) {
            this.client = client;
            this.server = server;
            pump(client, server);
            pump(server, client);
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        if (frozen) {
                            continue; // swallowed: the other side never hears of it
                        }
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                    if (!frozen) {
                        close(); // one side closed: the pipe ends with it (a frozen one never tells)
                    }
                } catch (IOException e) {
                    // one side failed: the pipe ends with it
                }
            }, "freezing-proxy-pipe");
            t.setDaemon(true);
            t.start();
        }

        void close() {
            try {
                client.close();
                server.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
