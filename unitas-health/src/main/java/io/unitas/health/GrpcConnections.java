package io.unitas.health;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * The bounds of the health agent's gRPC port, and the count that enforces the cap on connections: grpc-java bounds
 * what happens on a connection (calls, message and header sizes, idle time, resets) but not how many there are, so
 * the listening channel closes an accepted connection past the cap before it is read.
 *
 * @param maxConnections connections open at once; one more is closed at once
 * @param idle           a connection without a call (a Watch counts as one) for this long is sent GOAWAY and closed
 * @param handshake      a new connection must finish its HTTP/2 handshake within this
 * @param callsPerConnection calls one connection may have open at once (grpc-java's default is unbounded)
 */
record GrpcConnections(int maxConnections, Duration idle, Duration handshake, int callsPerConnection) {

    /**
     * 1,000 connections, 5 min idle (long enough that a client's channel kept between rare checks is not raced by
     * the GOAWAY), 10 s for the handshake, 16 calls each.
     */
    static final GrpcConnections DEFAULT = new GrpcConnections(1_000, Duration.ofMinutes(5), Duration.ofSeconds(10),
                                                               16);
    /** A health request is a service name: nothing bigger is needed. */
    static final int MAX_MESSAGE_BYTES = 4 * 1024;
    static final int MAX_METADATA_BYTES = 8 * 1024;
    /** Streams one client may reset in {@link #RESET_WINDOW_SECONDS} before it is sent GOAWAY (rapid reset). */
    static final int MAX_RESETS = 32;
    static final int RESET_WINDOW_SECONDS = 10;

    /** The count of one server's connections; its listening channels consult it. */
    static final class Gate {
        private final int max;
        private final AtomicInteger open = new AtomicInteger();
        private final LongAdder refused = new LongAdder();

        Gate(int max) {
            this.max = max;
        }

        int open() {
            return open.get();
        }

        long refused() {
            return refused.sum();
        }

        /** A listening channel that admits at most the gate's number of connections. */
        NioServerSocketChannel channel() {
            return new NioServerSocketChannel() {
                @Override
                protected int doReadMessages(List<Object> buf) throws Exception {
                    int from = buf.size();
                    int read = super.doReadMessages(buf);
                    for (int i = buf.size() - 1; i >= from; i--) {
                        Channel child = (Channel) buf.get(i);
                        if (open.incrementAndGet() > max) {
                            open.decrementAndGet();
                            refused.increment();
                            buf.remove(i);
                            child.unsafe().closeForcibly();
                            read--;
                        } else {
                            child.closeFuture().addListener(f -> open.decrementAndGet());
                        }
                    }
                    return read;
                }
            };
        }
    }
}
