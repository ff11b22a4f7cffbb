package io.unitas.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.netty.handler.codec.http.HttpContent;

/**
 * The body of a request that may run twice, kept so that a retry on another endpoint can send it again. Only a
 * short body is kept ({@link #MAX_BYTES}): a longer one streams on, and its request is not retried. Every attempt is
 * sent duplicates, so that the pieces stay here, readable from the start, until the exchange ends.
 */
final class ReplayBuffer {

    /** A body is kept up to this size; a longer one streams on, unretried. */
    static final int MAX_BYTES = 64 * 1024;

    private List<HttpContent> pieces; // made on first use: most requests have no body
    private int bytes;

    /** Whether {@code piece} can be kept as well, the body staying within {@link #MAX_BYTES}. */
    boolean fits(HttpContent piece) {
        return bytes + piece.content().readableBytes() <= MAX_BYTES;
    }

    /** Whether nothing has been kept (a request without body, most of them, keeps nothing). */
    boolean isEmpty() {
        return pieces == null;
    }

    /** Keeps {@code piece}, whose ownership passes. */
    void keep(HttpContent piece) {
        if (pieces == null) {
            pieces = new ArrayList<>(2);
        }
        pieces.add(piece);
        bytes += piece.content().readableBytes();
    }

    /** Gives {@code send} a duplicate of each piece kept, in order; the pieces stay kept. */
    void replay(Consumer<HttpContent> send) {
        for (HttpContent piece : pieces) {
            send.accept(piece.retainedDuplicate());
        }
    }

    /** Gives the pieces kept to {@code take}, whose they become, and keeps nothing more. */
    void handOver(Consumer<HttpContent> take) {
        if (pieces != null) {
            pieces.forEach(take);
            pieces = null;
        }
    }

    /** Releases the pieces kept. */
    void release() {
        handOver(HttpContent::release);
    }
}
