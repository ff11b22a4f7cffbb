package io.unitas.dns;

/**
 * A running {@code unitas dns}: an authoritative server for one zone on UDP and TCP (the same port), answering
 * each client with the region the core's route decision picks for the client's region (see {@link DnsConfig}).
 * Closing it stops the server, its metrics endpoint and its state feed.
 */
public interface DnsServer extends AutoCloseable {

    /** Starts a server; returns once it listens and has taken what routing state it can get. */
    static DnsServer start(DnsConfig config) {
        return NettyDnsServer.start(config, config.source().feed(io.unitas.core.fence.Writes.DEFAULT, false),
                                    java.time.Clock.systemUTC(), System::nanoTime);
    }

    /** The UDP and TCP port it answers on (the one chosen when the configuration said 0). */
    int port();

    /** The port of {@code /metrics}, or -1 when the configuration asks for none. */
    int metricsPort();

    /** The revision of the routing state it answers from, or -1 before it has any. */
    long revision();

    /** Blocks until the server is closed. */
    void awaitClose() throws InterruptedException;

    /** Stops answering and releases its resources. */
    @Override
    void close();
}
