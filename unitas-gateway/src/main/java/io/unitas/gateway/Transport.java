package io.unitas.gateway;

import java.util.function.Supplier;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import io.unitas.gateway.GatewayConfig.TransportKind;

/**
 * The socket layer, as {@code transport} in gateway.yaml chooses it: io_uring (a ring of submissions and completions
 * shared with the kernel: fewer system calls per request), Linux epoll, or Java NIO; UDP for DNS on the same.
 *
 * @param kind the layer, never {@code AUTO}
 */
record Transport(TransportKind kind, IoHandlerFactory io, Class<? extends ServerChannel> serverChannel,
                 Class<? extends Channel> socketChannel, Class<? extends DatagramChannel> datagramChannel) {

    /**
     * The layer {@code kind} names; {@code auto} takes the first of io_uring, epoll and NIO that this machine offers
     * (io_uring may be missing from the kernel, or forbidden to the process by a container's seccomp profile).
     *
     * @throws IllegalStateException when the named layer is not available here, with the reason
     */
    static Transport of(TransportKind kind) {
        return switch (kind) {
            case AUTO -> IoUring.isAvailable() ? ioUring() : Epoll.isAvailable() ? epoll() : nio();
            case IO_URING -> available(kind, IoUring.unavailabilityCause(), Transport::ioUring);
            case EPOLL -> available(kind, Epoll.unavailabilityCause(), Transport::epoll);
            case NIO -> nio();
        };
    }

    /** The layer, built only when it is available: building a missing one fails in Netty's words, not ours. */
    private static Transport available(TransportKind kind, Throwable unavailable, Supplier<Transport> layer) {
        if (unavailable != null) {
            throw new IllegalStateException("transport: " + kind.id() + " is not available here (" + unavailable
                                            + "); use transport: auto to take the best that is");
        }
        return layer.get();
    }

    private static Transport ioUring() {
        return new Transport(TransportKind.IO_URING, IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class,
                             IoUringSocketChannel.class, IoUringDatagramChannel.class);
    }

    private static Transport epoll() {
        return new Transport(TransportKind.EPOLL, EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
                             EpollSocketChannel.class, EpollDatagramChannel.class);
    }

    private static Transport nio() {
        return new Transport(TransportKind.NIO, NioIoHandler.newFactory(), NioServerSocketChannel.class,
                             NioSocketChannel.class, NioDatagramChannel.class);
    }

    /** The layer's name as gateway.yaml spells it. */
    String name() {
        return kind.id();
    }

    /** {@code threads} event loops named {@code name-N}, as daemon threads. */
    EventLoopGroup group(int threads, String name) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), io);
    }
}
