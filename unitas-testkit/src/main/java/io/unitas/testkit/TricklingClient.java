package io.unitas.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A slowloris client: it sends a request line and then one header line at a time, never the blank line that ends the
 * head, so that a server without a header deadline would hold its connection for ever. A server's test opens one,
 * checks that other clients are answered meanwhile, and then {@linkplain #trickleUntilClosed trickles} until the
 * server closes it.
 */
public final class TricklingClient implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private int lines;

    private TricklingClient(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code address} and sends {@code GET path HTTP/1.1} with its {@code Host} line, nothing more. */
    public static TricklingClient open(InetSocketAddress address, String path) {
        try {
            Socket socket = new Socket(address.getAddress(), address.getPort());
            TricklingClient client = new TricklingClient(socket);
            client.send("GET " + path + " HTTP/1.1\r\nHost: " + address.getHostString() + "\r\n");
            return client;
        } catch (IOException e) {
            throw new UncheckedIOException("trickling client: cannot connect to " + address, e);
        }
    }

    /**
     * Sends one header line every {@code every} until the server closes the connection (end of stream or a reset)
     * and returns true, or returns false when it is still open after {@code giveUp}. The server answering anything
     * counts as not closed: a head never finished must get no answer.
     */
    public boolean trickleUntilClosed(Duration every, Duration giveUp) {
        long end = System.nanoTime() + giveUp.toNanos();
        while (System.nanoTime() - end < 0) {
            try {
                send("x-slow-" + lines++ + ": 1\r\n");
                socket.setSoTimeout((int) Math.max(1, every.toMillis()));
                int read = socket.getInputStream().read();
                if (read == -1) {
                    return true;
                }
                throw new AssertionError("the server answered a request whose head never ended");
            } catch (SocketTimeoutException e) {
                // still open: the next line
            } catch (IOException e) {
                return true; // reset by the server, or the write failed on a closed connection
            }
        }
        return false;
    }

    /** Header lines sent after the first. */
    public int lines() {
        return lines;
    }

    private void send(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a test's socket: nothing to do
        }
    }
}
