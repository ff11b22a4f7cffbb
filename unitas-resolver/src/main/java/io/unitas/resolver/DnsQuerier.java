package io.unitas.resolver;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.dns.DefaultDnsOptEcsRecord;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;

/**
 * Asks one DNS server for a service's records with Netty's DNS client, reading rcodes and TTLs from the raw
 * responses (Netty's own caches are off: the resolver keeps answers for their TTL itself).
 */
final class DnsQuerier implements AutoCloseable {

    /** What one resolution came to. */
    enum Outcome { ANSWER, NODATA, NXDOMAIN, SERVFAIL, OTHER_RCODE, TIMEOUT, ERROR }

    /** One address of the answer, with its SRV priority and weight. */
    record Target(InetSocketAddress address, int priority, int weight) {}

    /** A resolution: the outcome, the targets (empty unless ANSWER) and the smallest TTL among the records used. */
    record Answer(Outcome outcome, List<Target> targets, long ttlSeconds, String detail) {
        static Answer failed(Outcome o, String detail) {
            return new Answer(o, List.of(), 0, detail);
        }
    }

    private record Rec(DnsRecordType type, String name, long ttl, Object data) {}

    private record Srv(int priority, int weight, int port, String target) {}

    private record Msg(DnsResponseCode rcode, List<Rec> answers, List<Rec> additionals) {}

    /** The payload size announced when the query carries its own OPT record (the DNS flag day's value). */
    private static final int PAYLOAD = 1232;

    private final EventLoopGroup group;
    private final DnsNameResolver dns;
    /** The query's additional records: its OPT record with the client subnet, or none (Netty adds its own OPT). */
    private final List<DnsRecord> additionals;

    DnsQuerier(InetSocketAddress server, Duration timeout, InetAddress subnet, int subnetPrefix) {
        ThreadFactory daemons = r -> {
            Thread t = new Thread(r, "unitas-resolver-dns");
            t.setDaemon(true);
            return t;
        };
        this.group = new MultiThreadIoEventLoopGroup(1, daemons, NioIoHandler.newFactory());
        EventLoop loop = group.next();
        this.dns = new DnsNameResolverBuilder(loop)
                .datagramChannelType(NioDatagramChannel.class)
                .socketChannelType(NioSocketChannel.class) // a truncated answer is asked again over TCP
                .nameServerProvider(new SingletonDnsServerAddressStreamProvider(server))
                .resolveCache(NoopDnsCache.INSTANCE)
                .cnameCache(NoopDnsCnameCache.INSTANCE)
                .authoritativeDnsServerCache(NoopAuthoritativeDnsServerCache.INSTANCE)
                .queryTimeoutMillis(timeout.toMillis())
                .maxQueriesPerResolve(1)
                .recursionDesired(true)
                .optResourceEnabled(subnet == null) // with a subnet, its OPT record is the query's only one
                .build();
        this.additionals = subnet == null ? List.of()
                : List.of(new DefaultDnsOptEcsRecord(PAYLOAD, subnetPrefix, masked(subnet.getAddress(), subnetPrefix)));
    }

    /** Resolves {@code service}: SRV then its targets' addresses, or A and AAAA. Never completes exceptionally. */
    CompletableFuture<Answer> resolve(ServiceName service) {
        return service.srv() ? srv(service) : host(service.name(), service.port(), 0, 1);
    }

    private CompletableFuture<Answer> srv(ServiceName service) {
        return query(service.name(), DnsRecordType.SRV).thenCompose(m -> {
            if (m == null) {
                return CompletableFuture.completedFuture(Answer.failed(Outcome.TIMEOUT, "SRV " + service.name()));
            }
            Answer failed = failure(m, "SRV " + service.name());
            if (failed != null) {
                return CompletableFuture.completedFuture(failed);
            }
            long ttl = Long.MAX_VALUE;
            List<CompletableFuture<Answer>> parts = new ArrayList<>();
            for (Rec r : m.answers()) {
                if (r.type() != DnsRecordType.SRV) {
                    continue;
                }
                ttl = Math.min(ttl, r.ttl());
                Srv s = (Srv) r.data();
                List<Target> glued = new ArrayList<>();
                long glueTtl = Long.MAX_VALUE;
                for (Rec a : m.additionals()) {
                    if (a.name().equals(s.target()) && a.data() instanceof InetAddress ip) {
                        glued.add(new Target(new InetSocketAddress(ip, s.port()), s.priority(), s.weight()));
                        glueTtl = Math.min(glueTtl, a.ttl());
                    }
                }
                parts.add(glued.isEmpty() ? host(s.target(), s.port(), s.priority(), s.weight())
                        : CompletableFuture.completedFuture(new Answer(Outcome.ANSWER, glued, glueTtl, "")));
            }
            if (parts.isEmpty()) {
                return CompletableFuture.completedFuture(Answer.failed(Outcome.NODATA, "SRV " + service.name()));
            }
            long srvTtl = ttl;
            return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
                List<Target> all = new ArrayList<>();
                long min = srvTtl;
                for (CompletableFuture<Answer> p : parts) {
                    Answer a = p.join();
                    if (a.outcome() == Outcome.ANSWER) {
                        all.addAll(a.targets());
                        min = Math.min(min, a.ttlSeconds());
                    }
                }
                return all.isEmpty() ? Answer.failed(Outcome.NODATA, "no address for the SRV targets of " + service.name())
                        : new Answer(Outcome.ANSWER, all, min, "");
            });
        });
    }

    private CompletableFuture<Answer> host(String name, int port, int priority, int weight) {
        CompletableFuture<Msg> a = query(name, DnsRecordType.A);
        CompletableFuture<Msg> aaaa = query(name, DnsRecordType.AAAA);
        return a.thenCombine(aaaa, (m4, m6) -> {
            List<Target> targets = new ArrayList<>();
            long ttl = Long.MAX_VALUE;
            for (Msg m : new Msg[] {m4, m6}) {
                if (m == null || m.rcode() != DnsResponseCode.NOERROR) {
                    continue;
                }
                for (Rec r : m.answers()) {
                    if (r.data() instanceof InetAddress ip && r.name().equals(name)) {
                        targets.add(new Target(new InetSocketAddress(ip, port), priority, weight));
                        ttl = Math.min(ttl, r.ttl());
                    }
                }
            }
            if (!targets.isEmpty()) {
                return new Answer(Outcome.ANSWER, targets, ttl, "");
            }
            if (m4 == null && m6 == null) {
                return Answer.failed(Outcome.TIMEOUT, name);
            }
            Msg worst = m4 == null ? m6 : m6 == null ? m4 : m4.rcode() != DnsResponseCode.NOERROR ? m4 : m6;
            Answer failed = failure(worst, name);
            return failed != null ? failed : Answer.failed(Outcome.NODATA, name);
        });
    }

    private static Answer failure(Msg m, String what) {
        DnsResponseCode rc = m.rcode();
        if (rc == DnsResponseCode.NOERROR) {
            return null;
        }
        Outcome o = rc == DnsResponseCode.NXDOMAIN ? Outcome.NXDOMAIN
                : rc == DnsResponseCode.SERVFAIL ? Outcome.SERVFAIL : Outcome.OTHER_RCODE;
        return Answer.failed(o, what + ": " + rc);
    }

    /** The parsed response, or null when the query timed out; an I/O error is a null too. */
    private CompletableFuture<Msg> query(String name, DnsRecordType type) {
        CompletableFuture<Msg> out = new CompletableFuture<>();
        dns.query(new DefaultDnsQuestion(name + ".", type), additionals).addListener(f -> {
            if (!f.isSuccess()) {
                out.complete(null);
                return;
            }
            @SuppressWarnings("unchecked")
            AddressedEnvelope<DnsResponse, InetSocketAddress> env =
                    (AddressedEnvelope<DnsResponse, InetSocketAddress>) f.getNow();
            try {
                DnsResponse r = env.content();
                out.complete(new Msg(r.code(), records(r, DnsSection.ANSWER), records(r, DnsSection.ADDITIONAL)));
            } catch (RuntimeException e) {
                out.complete(new Msg(DnsResponseCode.FORMERR, List.of(), List.of()));
            } finally {
                env.release();
            }
        });
        return out;
    }

    private static List<Rec> records(DnsResponse r, DnsSection section) {
        List<Rec> out = new ArrayList<>();
        for (int i = 0; i < r.count(section); i++) {
            DnsRecord rec = r.recordAt(section, i);
            if (!(rec instanceof DnsRawRecord raw)) {
                continue;
            }
            ByteBuf c = raw.content().duplicate();
            Object data = null;
            if (rec.type() == DnsRecordType.A && c.readableBytes() == 4
                    || rec.type() == DnsRecordType.AAAA && c.readableBytes() == 16) {
                byte[] ip = new byte[c.readableBytes()];
                c.readBytes(ip);
                try {
                    data = InetAddress.getByAddress(ip);
                } catch (UnknownHostException e) {
                    throw new AssertionError(e); // 4 or 16 bytes are always an address
                }
            } else if (rec.type() == DnsRecordType.SRV && c.readableBytes() >= 7) {
                int priority = c.readUnsignedShort();
                int weight = c.readUnsignedShort();
                int port = c.readUnsignedShort();
                data = new Srv(priority, weight, port, normal(DefaultDnsRecordDecoder.decodeName(c)));
            }
            if (data != null) {
                out.add(new Rec(rec.type(), normal(rec.name()), rec.timeToLive(), data));
            }
        }
        return out;
    }

    /** The address with every bit past {@code prefix} cleared (RFC 7871 §6: a server refuses stray bits). */
    private static byte[] masked(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - 8 * i));
            out[i] &= (byte) (0xff << (8 - keep));
        }
        return out;
    }

    private static String normal(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }

    @Override
    public void close() {
        dns.close();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
}
