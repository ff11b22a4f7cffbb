package io.unitas.dns;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.unitas.control.client.state.RoutingState;
import io.unitas.control.client.state.StateFeed;
import io.unitas.control.client.state.StateHolder;

/**
 * The server behind {@link DnsServer}: UDP and a TCP listener on the same port, all answered by one {@link Responder}.
 * With Linux epoll every event loop has a UDP socket of its own on the port (SO_REUSEPORT, as Knot and gdnsd run a
 * socket per thread), so UDP is answered on every core; elsewhere one NIO channel answers UDP. A TCP connection
 * carries any number of length-prefixed queries (RFC 7766) within the bounds {@link TcpConnections} keeps.
 * {@code /metrics} is served by {@link MetricsEndpoint}, on a loop of its own.
 */
final class NettyDnsServer implements DnsServer {

    private static final Logger log = LoggerFactory.getLogger(NettyDnsServer.class);

    /**
     * The kernel's buffers of a TCP connection, each way: DNS messages are small, and a client that does not read
     * must not park megabytes in the kernel either (autotuning would let a receive buffer grow to tcp_rmem's max).
     */
    private static final int TCP_SOCKET_BUFFER = 64 << 10;

    private final List<Channel> udp;
    private final Channel tcp;
    private final EventLoopGroup loops;
    private final MetricsEndpoint http;
    private final TcpConnections connections;
    private final StateHolder holder;
    private final StateFeed feed;
    private final CountDownLatch closed = new CountDownLatch(1);

    private NettyDnsServer(List<Channel> udp, Channel tcp, EventLoopGroup loops, MetricsEndpoint http,
                           TcpConnections connections, StateHolder holder, StateFeed feed) {
        this.udp = udp;
        this.tcp = tcp;
        this.loops = loops;
        this.http = http;
        this.connections = connections;
        this.holder = holder;
        this.feed = feed;
    }

    /**
     * Starts a server whose health transitions and hold-downs are told by {@code clock}, and whose connection
     * deadlines are measured on {@code ticker} (nanoseconds).
     */
    static NettyDnsServer start(DnsConfig config, StateFeed feed, Clock clock, LongSupplier ticker) {
        StateHolder holder = new StateHolder(System::nanoTime, clock, config.holdDown());
        feed.start(holder); // first, so that bad state files stop the start before anything is opened
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("unitas-dns", true),
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        MetricsEndpoint http = null;
        try {
            DnsMetrics metrics = new DnsMetrics();
            if (feed.watchStatus() != null) {
                metrics.watch(feed::watchStatus);
            }
            metrics.revision(() -> {
                RoutingState s = holder.get();
                return s == null ? -1L : s.revision();
            });
            TcpConnections connections = new TcpConnections(config.tcp(), ticker);
            metrics.tcp(connections);
            LoopGuard guard = new LoopGuard();
            metrics.loops(guard);
            Responder responder = new Responder(config, holder, clock, ticker, metrics);
            List<Channel> bound = bind(config.listen(), loops, epoll ? threads : 1, epoll, responder, connections);
            loops.next().scheduleAtFixedRate(guard.guard("tcp deadlines", connections::checkDeadlines),
                                             connections.tick(), connections.tick(), TimeUnit.NANOSECONDS);
            http = config.metrics() == null ? null
                   : MetricsEndpoint.start(config.metrics(), metrics::scrape, ticker, guard);
            return new NettyDnsServer(bound.subList(1, bound.size()), bound.get(0), loops, http, connections, holder,
                                      feed);
        } catch (RuntimeException e) {
            if (http != null) {
                http.close();
            }
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            feed.close();
            throw e;
        }
    }

    /**
     * The TCP listener then {@code sockets} UDP channels, all on one port; with port 0, the port the first UDP
     * channel got (tried again if TCP has it taken).
     */
    private static List<Channel> bind(InetSocketAddress at, EventLoopGroup loops, int sockets, boolean epoll,
                                      Responder responder, TcpConnections connections) {
        String failure = null;
        UdpHandler handler = new UdpHandler(responder);
        Bootstrap datagrams = new Bootstrap().group(loops).handler(handler);
        if (epoll) {
            datagrams.channel(EpollDatagramChannel.class).option(EpollChannelOption.SO_REUSEPORT, true);
        } else {
            datagrams.channel(NioDatagramChannel.class);
        }
        for (int attempt = 0; attempt < (at.getPort() == 0 ? 5 : 1); attempt++) {
            ChannelFuture udp = datagrams.bind(at).awaitUninterruptibly();
            if (!udp.isSuccess()) {
                failure = "udp: " + udp.cause().getMessage();
                continue;
            }
            int port = ((InetSocketAddress) udp.channel().localAddress()).getPort();
            ChannelFuture tcp = new ServerBootstrap().group(loops)
                    .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_RCVBUF, TCP_SOCKET_BUFFER) // on the listener: before the handshake
                    .childOption(ChannelOption.SO_SNDBUF, TCP_SOCKET_BUFFER)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                            DnsConfig.Tcp.MAX_UNSENT_BYTES / 2, DnsConfig.Tcp.MAX_UNSENT_BYTES))
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(64, 1024,
                                                                                                 16 << 10))
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new LengthFieldPrepender(2), connections.connection(responder));
                        }
                    })
                    .bind(new InetSocketAddress(at.getAddress(), port)).awaitUninterruptibly();
            if (tcp.isSuccess()) {
                List<Channel> out = new ArrayList<>();
                out.add(tcp.channel());
                out.add(udp.channel());
                InetSocketAddress same = new InetSocketAddress(at.getAddress(), port);
                for (int i = 1; i < sockets; i++) {
                    ChannelFuture more = datagrams.bind(same).awaitUninterruptibly();
                    if (!more.isSuccess()) {
                        out.forEach(c -> c.close().awaitUninterruptibly());
                        throw new IllegalStateException("cannot listen on " + at.getHostString() + ":" + port
                                                        + ": udp: " + more.cause().getMessage());
                    }
                    out.add(more.channel());
                }
                return out;
            }
            failure = "tcp: " + tcp.cause().getMessage();
            udp.channel().close().awaitUninterruptibly();
        }
        throw new IllegalStateException("cannot listen on " + at.getHostString() + ":" + at.getPort() + ": "
                                        + failure);
    }

    @ChannelHandler.Sharable
    private static final class UdpHandler extends SimpleChannelInboundHandler<DatagramPacket> {
        private final Responder responder;

        UdpHandler(Responder responder) {
            this.responder = responder;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            ByteBuf answer = answer(responder, packet.content(), packet.sender(), true, ctx);
            if (answer != null) {
                ctx.write(new DatagramPacket(answer, packet.sender()));
            }
        }

        /** The answers to one read's packets leave together: on epoll, one sendmmsg rather than a sendto each. */
        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.warn("udp: {}", cause.toString()); // e.g. ICMP port unreachable; the channel stays open
        }
    }

    /** The responder's answer; a failure of its own is logged and the query goes unanswered, the server stays up. */
    static ByteBuf answer(Responder responder, ByteBuf query, InetSocketAddress from, boolean udp,
                          ChannelHandlerContext ctx) {
        try {
            return responder.respond(query, from.getAddress(), udp, ctx.alloc());
        } catch (RuntimeException e) {
            log.warn("cannot answer a query from {}: {}", from, e.toString());
            return null;
        }
    }

    /** The metrics endpoint (for tests: deadlines checked now), or {@code null} when there is none. */
    MetricsEndpoint metricsEndpoint() {
        return http;
    }

    /** The TCP connections and their bounds (for tests: deadlines checked now, bytes held). */
    TcpConnections connections() {
        return connections;
    }

    @Override
    public int port() {
        return ((InetSocketAddress) tcp.localAddress()).getPort();
    }

    @Override
    public int metricsPort() {
        return http == null ? -1 : http.port();
    }

    @Override
    public long revision() {
        RoutingState s = holder.get();
        return s == null ? -1 : s.revision();
    }

    @Override
    public void awaitClose() throws InterruptedException {
        closed.await();
    }

    @Override
    public void close() {
        feed.close();
        udp.forEach(c -> c.close().awaitUninterruptibly());
        tcp.close().awaitUninterruptibly();
        if (http != null) {
            http.close();
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        closed.countDown();
    }
}
