package io.unitas.gateway;

import java.util.function.Supplier;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
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
import io.netty.channel.uring.IoUringBufferRingConfig;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringFixedBufferRingAllocator;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import io.unitas.gateway.GatewayConfig.TransportKind;

/**
 * The socket layer, as {@code transport} in gateway.yaml chooses it: io_uring (a ring of submissions and completions
 * shared with the kernel: fewer system calls per request), Linux epoll, or Java NIO; UDP for DNS on the same.
 *
 * <p>io_uring reads into a ring of buffers that each event loop hands the kernel (where the kernel offers such rings):
 * a connection's read is then one completion carrying its bytes, instead of a completion saying the socket is readable
 * and a second one, a pass over the ring later, for the read that follows it. Side by side on the benchmark's load that
 * cut the gateway's CPU per request by a tenth; its effect on the p99 added is within this machine's noise
 * (docs/gateway.md, "Reads into a ring of buffers").
 *
 * @param kind the layer, never {@code AUTO}
 * @param bufferRing whether stream connections read into the event loop's ring of buffers (io_uring only)
 */
record Transport(TransportKind kind, IoHandlerFactory io, Class<? extends ServerChannel> serverChannel,
                 Class<? extends Channel> socketChannel, Class<? extends DatagramChannel> datagramChannel,
                 boolean bufferRing) {

    /** The ring's id among an event loop's rings of buffers. */
    private static final short BUFFER_GROUP = 1;
    /**
     * The ring's most buffers: it starts with {@link #BUFFER_BATCH} and grows by as many when reads find it empty, so
     * only a loop that once had that many reads at a time holds them all (512 x 4 KiB = 2 MiB).
     */
    private static final short BUFFER_RING_SIZE = 512;
    private static final int BUFFER_BATCH = 32;
    /** A request head or a small answer fits one buffer; a larger body arrives as a completion per 4 KiB. */
    private static final int BUFFER_SIZE = 4096;

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
        IoUringIoHandlerConfig config = new IoUringIoHandlerConfig();
        boolean bufferRing = IoUring.isRegisterBufferRingSupported(); // kernels from 5.19
        if (bufferRing) {
            config.setBufferRingConfig(IoUringBufferRingConfig.builder()
                                               .bufferGroupId(BUFFER_GROUP)
                                               .bufferRingSize(BUFFER_RING_SIZE)
                                               .batchSize(BUFFER_BATCH)
                                               .allocator(new IoUringFixedBufferRingAllocator(BUFFER_SIZE))
                                               .build());
        }
        return new Transport(TransportKind.IO_URING, IoUringIoHandler.newFactory(config),
                             IoUringServerSocketChannel.class, IoUringSocketChannel.class, IoUringDatagramChannel.class,
                             bufferRing);
    }

    private static Transport epoll() {
        return new Transport(TransportKind.EPOLL, EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
                             EpollSocketChannel.class, EpollDatagramChannel.class, false);
    }

    private static Transport nio() {
        return new Transport(TransportKind.NIO, NioIoHandler.newFactory(), NioServerSocketChannel.class,
                             NioSocketChannel.class, NioDatagramChannel.class, false);
    }

    /** {@code bootstrap} opening this layer's connections, reading into the loop's ring where there is one. */
    Bootstrap connecting(Bootstrap bootstrap) {
        bootstrap.channel(socketChannel);
        if (bufferRing) {
            bootstrap.option(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, BUFFER_GROUP);
        }
        return bootstrap;
    }

    /** {@code bootstrap} accepting this layer's connections, reading into the loop's ring where there is one. */
    ServerBootstrap accepting(ServerBootstrap bootstrap) {
        bootstrap.channel(serverChannel);
        if (bufferRing) {
            bootstrap.childOption(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, BUFFER_GROUP);
        }
        return bootstrap;
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
