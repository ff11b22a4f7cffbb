package io.unitas.spring;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a server, as a far region looks from here: every new connection takes {@code connect}
 * before its first byte passes (a slow handshake), after which bytes pass at once; {@link #freeze()} stops forwarding
 * on the connections open now without closing them (a home that stops answering).
 */
final class SlowConnectProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final URI target;
    private final Duration connect;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;

    SlowConnectProxy(URI target, Duration connect) throws IOException {
        this.target = target;
        this.connect = connect;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept, "slow-connect-proxy").start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Swallows every byte from now on, closing nothing. */
    void freeze() {
        frozen = true;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                daemon(() -> open(client), "slow-connect-proxy-open").start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void open(Socket client) {
        try {
            Thread.sleep(connect.toMillis());
            Socket server = new Socket(target.getHost(), target.getPort());
            sockets.add(server);
            daemon(() -> pump(client, server), "slow-connect-proxy-up").start();
            daemon(() -> pump(server, client), "slow-connect-proxy-down").start();
        } catch (IOException | InterruptedException e) {
            close(client);
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!frozen) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // one side failed: the pipe ends with it
        }
        if (!frozen) {
            close(from);
            close(to);
        }
    }

    private static Thread daemon(Runnable task, String name) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        return t;
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(SlowConnectProxy::close);
    }
}
