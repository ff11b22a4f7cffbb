package io.unitas.control.client.state;

/** Where routing state comes from (see {@link StateSource#feed}): it publishes every good snapshot into the holder until closed. */
public interface StateFeed extends AutoCloseable {

    /** Publishes the first snapshot it can (if any) before returning, then keeps publishing in the background. */
    void start(StateHolder holder);

    /** How the control plane's watch is doing, or {@code null} when this feed does not watch one. */
    default io.unitas.control.client.WatchStatus watchStatus() {
        return null;
    }

    /** Stops publishing. */
    @Override
    void close();
}
