package io.unitas.resolver;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DefaultDnsResponse;
import io.netty.handler.codec.dns.DnsQuery;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.TcpDnsQueryDecoder;
import io.netty.handler.codec.dns.TcpDnsResponseEncoder;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.unitas.testkit.Ports;

/**
 * A small authoritative DNS server on Netty's DNS codec, over UDP and TCP on a free loopback port: it answers the SRV and
 * A records it is given, and can be told to answer NXDOMAIN or SERVFAIL, or not to answer at all.
 */
public final class DnsResponder implements AutoCloseable {

    /** How the responder answers. */
    public enum Mode { ANSWER, NXDOMAIN, SERVFAIL, SILENT }

    public record Srv(int priority, int weight, int port, String target) {}

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel channel;
    private final Channel tcp;
    private final AtomicInteger tcpQueries = new AtomicInteger();
    private volatile boolean truncateUdp;
    private final Map<String, List<Srv>> srv = new ConcurrentHashMap<>();
    private final Map<String, List<InetAddress>> a = new ConcurrentHashMap<>();
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final AtomicInteger queries = new AtomicInteger();
    private volatile Mode mode = Mode.ANSWER;
    private volatile long ttl = 30;
    private volatile boolean glue;
    private volatile String subnet = "";

    public DnsResponder() throws InterruptedException {
        int port = Ports.free();
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<NioDatagramChannel>() {
                    @Override
                    protected void initChannel(NioDatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                                new Handler());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).sync().channel();
        tcp = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new TcpDnsQueryDecoder(), new TcpDnsResponseEncoder(), new Handler());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).sync().channel();
    }

    /** Whether UDP answers come back empty with TC set, so that the client asks again over TCP. */
    public DnsResponder truncateUdp(boolean on) {
        this.truncateUdp = on;
        return this;
    }

    public int tcpQueries() {
        return tcpQueries.get();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    public DnsResponder srv(String name, Srv... records) {
        srv.put(name + ".", List.of(records));
        return this;
    }

    public DnsResponder a(String name, InetAddress... addresses) {
        a.put(name + ".", List.of(addresses));
        return this;
    }

    public DnsResponder mode(Mode m) {
        this.mode = m;
        return this;
    }

    public DnsResponder ttl(long seconds) {
        this.ttl = seconds;
        return this;
    }

    /** Whether SRV answers carry the targets' addresses in the additional section. */
    DnsResponder glue(boolean on) {
        this.glue = on;
        return this;
    }

    public int queries() {
        return queries.get();
    }

    List<String> asked() {
        return asked;
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        tcp.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** The client subnet of the last query ({@code 10.1.0.0/24}), or empty when it carried none. */
    public String lastSubnet() {
        return subnet;
    }

    /** The EDNS Client Subnet option (code 8) of the query's OPT record, as {@code address/prefix}. */
    private static String subnetOf(DnsQuery q) {
        for (int i = 0; i < q.count(DnsSection.ADDITIONAL); i++) {
            if (q.recordAt(DnsSection.ADDITIONAL, i) instanceof io.netty.handler.codec.dns.DnsRawRecord raw
                    && raw.type() == DnsRecordType.OPT) {
                ByteBuf b = raw.content().duplicate();
                while (b.readableBytes() >= 4) {
                    int code = b.readUnsignedShort();
                    int length = b.readUnsignedShort();
                    ByteBuf option = b.readSlice(length);
                    if (code == 8) {
                        int family = option.readUnsignedShort();
                        int prefix = option.readUnsignedByte();
                        option.readUnsignedByte(); // scope
                        byte[] ip = new byte[family == 1 ? 4 : 16];
                        option.readBytes(ip, 0, option.readableBytes());
                        try {
                            return InetAddress.getByAddress(ip).getHostAddress() + "/" + prefix;
                        } catch (java.net.UnknownHostException e) {
                            throw new AssertionError(e);
                        }
                    }
                }
            }
        }
        return "";
    }

    private final class Handler extends SimpleChannelInboundHandler<DnsQuery> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DnsQuery q) {
            queries.incrementAndGet();
            boolean udp = q instanceof DatagramDnsQuery;
            if (!udp) {
                tcpQueries.incrementAndGet();
            }
            DnsQuestion question = q.recordAt(DnsSection.QUESTION);
            asked.add(question.type().name() + " " + question.name());
            subnet = subnetOf(q);
            Mode m = mode;
            if (m == Mode.SILENT) {
                return;
            }
            DnsResponse r = udp ? new DatagramDnsResponse(((DatagramDnsQuery) q).recipient(),
                    ((DatagramDnsQuery) q).sender(), q.id()) : new DefaultDnsResponse(q.id());
            r.setAuthoritativeAnswer(true);
            r.setRecursionDesired(q.isRecursionDesired());
            r.addRecord(DnsSection.QUESTION, question);
            if (udp && truncateUdp) {
                r.setTruncated(true);
                ctx.writeAndFlush(r);
                return;
            }
            String name = question.name().toLowerCase();
            if (m == Mode.SERVFAIL) {
                r.setCode(DnsResponseCode.SERVFAIL);
            } else if (!srv.containsKey(name) && !a.containsKey(name)) {
                r.setCode(DnsResponseCode.NXDOMAIN);
            } else if (m == Mode.NXDOMAIN) {
                r.setCode(DnsResponseCode.NXDOMAIN);
            } else if (question.type() == DnsRecordType.SRV) {
                for (Srv s : srv.getOrDefault(name, List.of())) {
                    ByteBuf b = Unpooled.buffer();
                    b.writeShort(s.priority()).writeShort(s.weight()).writeShort(s.port());
                    writeName(b, s.target() + ".");
                    r.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(name, DnsRecordType.SRV, ttl, b));
                    if (glue) {
                        for (InetAddress ip : a.getOrDefault(s.target() + ".", List.of())) {
                            r.addRecord(DnsSection.ADDITIONAL, address(s.target() + ".", ip));
                        }
                    }
                }
            } else {
                for (InetAddress ip : a.getOrDefault(name, List.of())) {
                    boolean v4 = ip.getAddress().length == 4;
                    if (v4 == (question.type() == DnsRecordType.A)) {
                        r.addRecord(DnsSection.ANSWER, address(name, ip));
                    }
                }
            }
            ctx.writeAndFlush(r);
        }

        private DefaultDnsRawRecord address(String name, InetAddress ip) {
            DnsRecordType type = ip.getAddress().length == 4 ? DnsRecordType.A : DnsRecordType.AAAA;
            return new DefaultDnsRawRecord(name, type, ttl, Unpooled.wrappedBuffer(ip.getAddress()));
        }

        private void writeName(ByteBuf b, String name) {
            for (String label : name.split("\\.")) {
                if (!label.isEmpty()) {
                    b.writeByte(label.length());
                    b.writeBytes(label.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                }
            }
            b.writeByte(0);
        }
    }
}
