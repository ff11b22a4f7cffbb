package io.unitas.playground;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A TCP proxy for one directed link between regions (region A's processes to one endpoint of region B), run inside
 * the JVM that runs the deployment: the deployment writes the proxy's address where A's processes would name B's
 * endpoint, so everything A sends to it crosses here. Three modes, switched at any time, established connections
 * included:
 * <ul>
 *   <li>{@link Mode#OPEN} forwards at once;
 *   <li>{@link Mode#CUT} forwards nothing: a new connection is accepted and hangs (the target is connected to only
 *       once the link is open again), an established one stops forwarding in both directions, as a real partition
 *       hangs rather than refuses;
 *   <li>{@link #delay delay} holds every chunk, each direction, for a fixed latency after it was read, in order.
 * </ul>
 * Open or delayed, a link whose target refuses a connection (the far region's process is dead) refuses too: the
 * connection that found out is reset, and the link stops listening until the target takes connections again, so a
 * region that is gone looks gone from across the link, as on a network without a proxy, rather than like one that
 * accepts and hangs up.
 * Memory is bounded: each direction of a connection queues at most {@link #QUEUE} chunks of {@link #CHUNK} bytes, and
 * stops reading its source while its queue is full (TCP's own flow control then holds the sender).
 */
final class LinkProxy implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LinkProxy.class.getName());
    static final int CHUNK = 16 * 1024;
    static final int QUEUE = 64;
    /** The longest a held chunk waits before it looks at the mode and the clock again. */
    private static final long RECHECK_MILLIS = 50;
    private static final byte[] END = new byte[0];

    /** What the link does with what it carries. */
    enum Mode { OPEN, CUT, DELAY }

    private final String name;
    private final InetSocketAddress target;
    private final LongSupplier ticker;
    private final int port;
    private volatile ServerSocket server;
    private volatile boolean refusing;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong failures = new AtomicLong();
    private final Object modeChanged = new Object();
    private volatile Mode mode = Mode.OPEN;
    private volatile long delayNanos;
    private volatile boolean closed;

    private LinkProxy(String name, ServerSocket server, InetSocketAddress target, LongSupplier ticker) {
        this.name = name;
        this.server = server;
        this.port = server.getLocalPort();
        this.target = target;
        this.ticker = ticker;
    }

    /**
     * Listens on {@code 127.0.0.1:port} ({@code 0}: a free port) and forwards to {@code target}, open;
     * {@code ticker} is the clock of {@link #delay} (nanoseconds).
     */
    static LinkProxy start(String name, int port, InetSocketAddress target, LongSupplier ticker) {
        ServerSocket server;
        try {
            server = listen(port);
        } catch (IOException e) {
            throw new IllegalStateException("link " + name + ": cannot listen on 127.0.0.1:" + port + ": "
                                            + e.getMessage(), e);
        }
        LinkProxy p = new LinkProxy(name, server, Objects.requireNonNull(target, "target"), ticker);
        ServerSocket first = server;
        daemon("link-" + name + "-accept", () -> p.accept(first));
        return p;
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return server;
    }

    /**
     * Sends what the links log (a link refusing as its target does, and taking connections again) to {@code file},
     * replaced, instead of the console, until the returned handle is closed: a deployment's processes each log to a
     * file of their own, and so do its links.
     *
     * @throws UncheckedIOException when {@code file} cannot be written
     */
    static AutoCloseable logTo(java.nio.file.Path file) {
        java.util.logging.StreamHandler handler;
        try {
            handler = new java.util.logging.StreamHandler(java.nio.file.Files.newOutputStream(file),
                                                          new java.util.logging.SimpleFormatter()) {
                @Override
                public synchronized void publish(java.util.logging.LogRecord record) {
                    super.publish(record);
                    flush();
                }
            };
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("links: cannot write " + file + ": " + e.getMessage(), e);
        }
        LOG.addHandler(handler);
        LOG.setUseParentHandlers(false);
        return () -> {
            LOG.removeHandler(handler);
            LOG.setUseParentHandlers(true);
            handler.close();
        };
    }

    /** The port it listens on (also while it refuses, as its target does). */
    int port() {
        return port;
    }

    String name() {
        return name;
    }

    Mode mode() {
        return mode;
    }

    /** Connections that ended with an error other than a close (each also logged, once, at FINE). */
    long failures() {
        return failures.get();
    }

    /** Forwards at once again; held chunks go on in order. */
    void open() {
        set(Mode.OPEN, 0);
    }

    /** Stops forwarding: new connections hang, established ones carry nothing, until {@link #open} or a delay. */
    void cut() {
        set(Mode.CUT, 0);
    }

    /** Holds every chunk for {@code latency} after it was read, in each direction, in order. */
    void delay(Duration latency) {
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency: " + latency + " (expected: >= 0)");
        }
        set(latency.isZero() ? Mode.OPEN : Mode.DELAY, latency.toNanos());
    }

    private void set(Mode m, long nanos) {
        synchronized (modeChanged) {
            delayNanos = nanos;
            mode = m;
            modeChanged.notifyAll();
        }
    }

    private void accept(ServerSocket listening) {
        while (!closed && !listening.isClosed()) {
            try {
                Socket from = listening.accept();
                sockets.add(from);
                daemon("link-" + name + "-connect", () -> connect(from));
            } catch (IOException e) {
                if (!closed && !listening.isClosed()) {
                    failed("accept", e);
                }
            } catch (Throwable t) {
                failed("accept", t);
            }
        }
    }

    /**
     * The target refused: so does the link. It stops listening, and a loop connects to the target every
     * {@link #RECHECK_MILLIS} until it answers, then listens again on the same port.
     */
    private void refuseLikeTheTarget() {
        synchronized (this) {
            if (refusing || closed) {
                return;
            }
            refusing = true;
            try {
                server.close();
            } catch (IOException e) {
                // closing: nothing left to do with it
            }
        }
        LOG.info("link " + name + ": " + target.getHostString() + ":" + target.getPort() + " refuses connections;"
                 + " so does 127.0.0.1:" + port + " until it takes them again");
        daemon("link-" + name + "-refusing", () -> {
            while (!closed) {
                try (Socket probe = new Socket()) {
                    probe.connect(target, 1_000);
                } catch (IOException e) {
                    sleepQuietly(RECHECK_MILLIS);
                    continue;
                }
                try {
                    ServerSocket again = listen(port);
                    synchronized (this) {
                        server = again;
                        refusing = false;
                        if (closed) {
                            again.close();
                            return;
                        }
                    }
                    LOG.info("link " + name + ": " + target.getHostString() + ":" + target.getPort()
                             + " takes connections again; so does 127.0.0.1:" + port);
                    accept(again);
                    return;
                } catch (IOException e) {
                    failed("listen again on " + port, e);
                    sleepQuietly(RECHECK_MILLIS);
                }
            }
        });
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits while the link is cut (the caller's connection hangs, accepted), then connects to the target. */
    private void connect(Socket from) {
        Socket to = null;
        try {
            awaitNotCut();
            to = new Socket();
            sockets.add(to);
            try {
                to.connect(target, 5_000);
            } catch (java.net.ConnectException e) {
                from.setSoLinger(true, 0); // a reset, as near a refusal as an accepted connection gets
                refuseLikeTheTarget();
                throw e;
            }
            from.setTcpNoDelay(true);
            to.setTcpNoDelay(true);
            pump(from, to, "up");
            pump(to, from, "down");
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (!closed && !(e instanceof InterruptedException)) {
                failed("connect to " + target, e);
            }
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** One direction: a reader into a bounded queue, a writer that forwards each chunk when the mode lets it. */
    private void pump(Socket in, Socket out, String direction) {
        BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUE);
        daemon("link-" + name + "-" + direction + "-read", () -> {
            try {
                InputStream is = in.getInputStream();
                while (true) {
                    byte[] buf = new byte[CHUNK];
                    int n = is.read(buf);
                    if (n < 0) {
                        queue.put(new Chunk(END, ticker.getAsLong()));
                        return;
                    }
                    queue.put(new Chunk(Arrays.copyOf(buf, n), ticker.getAsLong()));
                }
            } catch (IOException | InterruptedException e) {
                end(in, out, e);
            } catch (Throwable t) {
                failed(direction, t);
                end(in, out, null);
            }
        });
        daemon("link-" + name + "-" + direction + "-write", () -> {
            try {
                OutputStream os = out.getOutputStream();
                while (true) {
                    Chunk c = queue.take();
                    awaitRelease(c.readAt());
                    if (c.bytes() == END) {
                        out.shutdownOutput(); // a half close passes through; the other direction goes on
                        return;
                    }
                    os.write(c.bytes());
                    os.flush();
                }
            } catch (IOException | InterruptedException e) {
                end(in, out, e);
            } catch (Throwable t) {
                failed(direction, t);
                end(in, out, null);
            }
        });
    }

    /** Waits until the link is open, or delayed and {@code readAt} plus the delay has passed. */
    private void awaitRelease(long readAt) throws InterruptedException {
        synchronized (modeChanged) {
            while (!closed) {
                Mode m = mode;
                if (m == Mode.OPEN) {
                    return;
                }
                long wait = RECHECK_MILLIS;
                if (m == Mode.DELAY) {
                    long left = readAt + delayNanos - ticker.getAsLong();
                    if (left <= 0) {
                        return;
                    }
                    wait = Math.min(wait, left / 1_000_000 + 1);
                }
                modeChanged.wait(wait);
            }
        }
    }

    private void awaitNotCut() throws InterruptedException {
        synchronized (modeChanged) {
            while (mode == Mode.CUT && !closed) {
                modeChanged.wait(RECHECK_MILLIS);
            }
        }
    }

    /** A connection ends as a whole: either side closing or failing closes both. */
    private void end(Socket a, Socket b, Exception cause) {
        if (cause instanceof IOException && !closed && !a.isClosed() && !b.isClosed()) {
            failed("forward", cause);
        }
        closeQuietly(a);
        closeQuietly(b);
    }

    private void failed(String what, Throwable t) {
        failures.incrementAndGet();
        LOG.log(Level.FINE, "link " + name + ": " + what + ": " + t);
    }

    private void closeQuietly(Socket s) {
        if (s == null) {
            return;
        }
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closing: nothing left to do with it
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    /** Stops listening and closes every connection it holds. */
    @Override
    public void close() {
        closed = true;
        synchronized (modeChanged) {
            modeChanged.notifyAll();
        }
        synchronized (this) {
            try {
                server.close();
            } catch (IOException e) {
                // closing: nothing left to do with it
            }
        }
        sockets.forEach(this::closeQuietly);
    }

    @Override
    public String toString() {
        return "link " + name + " 127.0.0.1:" + port() + " -> " + target.getHostString() + ":" + target.getPort() + " ("
               + mode.name().toLowerCase(java.util.Locale.ROOT)
               + (mode == Mode.DELAY ? " " + delayNanos / 1_000_000 + " ms" : "") + ")";
    }

    private record Chunk(byte[] bytes, long readAt) {}
}
