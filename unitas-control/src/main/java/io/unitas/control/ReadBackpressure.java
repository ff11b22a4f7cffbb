package io.unitas.control;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;

/**
 * Reads a connection only while it can take the answers. A client that pipelines requests and reads nothing would
 * otherwise have every request decoded and answered into memory: 6.1 MB of anonymous state reads once grew the heap
 * by 531 MB, before authentication. A read asked for is held back while the connection has too many requests
 * unanswered ({@link #limit}) or its unsent bytes are past Netty's high-water mark, and asked again when neither
 * holds: the requests wait in the client's socket buffers, not in the heap. Placed first in the pipeline, so that it
 * sees every read on its way to the socket; touched on the connection's event loop only.
 */
final class ReadBackpressure extends ChannelDuplexHandler {

    /** The pipeline name of this handler. */
    static final String NAME = "unitas-read-backpressure";

    private boolean held;
    private boolean tooMany;

    /** Holds (or, with {@code tooMany} false, releases) the reads of {@code channel} for its unanswered requests. */
    static void limit(Channel channel, boolean tooMany) {
        channel.eventLoop().execute(() -> {
            ReadBackpressure r = channel.pipeline().get(ReadBackpressure.class);
            if (r != null) {
                r.tooMany = tooMany;
                if (tooMany) {
                    r.hold(channel);
                } else {
                    r.releaseIfAllowed(channel);
                }
            }
        });
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (allowed(ctx.channel())) {
            ctx.read();
        } else {
            hold(ctx.channel());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!allowed(ctx.channel())) {
            hold(ctx.channel()); // what this read brought is decoded, but the socket is not read again
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        releaseIfAllowed(ctx.channel());
        ctx.fireChannelWritabilityChanged();
    }

    private boolean allowed(Channel channel) {
        return !tooMany && channel.isWritable();
    }

    /** With auto-read on, the transport reads whenever data arrives: a held read must turn it off too. */
    private void hold(Channel channel) {
        if (!held) {
            held = true;
            channel.config().setAutoRead(false);
        }
    }

    private void releaseIfAllowed(Channel channel) {
        if (held && allowed(channel)) {
            held = false;
            channel.config().setAutoRead(true); // asks for a read, too
        }
    }
}
