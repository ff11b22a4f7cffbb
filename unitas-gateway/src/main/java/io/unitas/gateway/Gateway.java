package io.unitas.gateway;

/**
 * A running unitas gateway: an HTTP/1.1 and h2c server that sends every request to the region holding its
 * user's data (see {@link GatewayConfig} for what it is told). Closing it stops the server and its feeds.
 */
public interface Gateway extends AutoCloseable {

    /** Starts a gateway; returns once it listens and has taken what routing state it can get. */
    static Gateway start(GatewayConfig config) {
        return GatewayServer.start(config, GatewayServer.feedFor(config));
    }

    /** The port it listens on (the one chosen when the configuration said 0). */
    int port();

    /** The socket layer it runs on: {@code io_uring}, {@code epoll} or {@code nio}. */
    String transport();

    /**
     * The time slices its event loops ask the scheduler for: {@code 0.1 ms time slices}, or {@code the kernel's time
     * slices} (as gateway.yaml's {@code time_slice: kernel} says, or with why a shorter one was not had).
     */
    String timeSlices();

    /** The revision of the routing state it serves with, or -1 before it has any. */
    long revision();

    /** Blocks until the gateway is closed. */
    void awaitClose() throws InterruptedException;

    /** Stops serving and releases its resources. */
    @Override
    void close();
}
