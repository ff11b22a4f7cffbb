package io.unitas.dns;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordEncoder;
import io.netty.handler.codec.dns.DnsRecordType;
import io.unitas.control.client.state.RoutingState;
import io.unitas.core.Region;

/**
 * Answers one query packet with one answer packet, the way BIND, gdnsd and Knot do: authoritative answers inside
 * the zone (SOA and NS at the apex, NXDOMAIN for a name that does not exist, NODATA for a type it does not have),
 * REFUSED outside it, FORMERR for what cannot be read, NOTIMP for opcodes other than QUERY; A, AAAA and SRV from
 * the region {@link AnswerPlan} chooses for the client's region. Never throws on bad input.
 */
final class Responder {

    static final int NOERROR = 0;
    static final int FORMERR = 1;
    static final int NXDOMAIN = 3;
    static final int NOTIMP = 4;
    static final int REFUSED = 5;
    private static final int BADVERS = 16;

    private static final int AA = 0x0400;
    private static final int TC = 0x0200;
    private static final int RD = 0x0100;
    private static final int CLASS_IN = 1;
    /** The UDP payload it offers in its own OPT record (the DNS flag day 2020 value). */
    static final int OWN_PAYLOAD = 1232;
    private static final DnsRecordEncoder ENCODER = DnsRecordEncoder.DEFAULT;

    private final DnsConfig config;
    private final Supplier<RoutingState> state;
    private final Clock clock;
    private final DnsMetrics metrics;
    private final GeoMap geo;
    private final ResponseRateLimiter limiter;
    private final Map<Region, Region> lastHealthy = new ConcurrentHashMap<>();

    /** A responder whose rate limiting, if the configuration asks for it, runs on {@code ticker} (nanoseconds). */
    Responder(DnsConfig config, Supplier<RoutingState> state, Clock clock, LongSupplier ticker, DnsMetrics metrics) {
        this.config = config;
        this.state = state;
        this.clock = clock;
        this.metrics = metrics;
        this.geo = new GeoMap(config.geo());
        this.limiter = config.rateLimit() == null ? null : new ResponseRateLimiter(config.rateLimit(), ticker);
    }

    /**
     * The answer to {@code packet} from {@code source}, or {@code null} when nothing must be sent (fewer than 12
     * bytes, or a response rather than a query, or one the rate limit drops); over {@code udp} an answer larger than
     * the client accepts, or one the rate limit slips, is sent truncated (TC, no records), for the client to ask
     * again over TCP.
     */
    ByteBuf respond(ByteBuf packet, InetAddress source, boolean udp, ByteBufAllocator alloc) {
        if (packet.readableBytes() < 12 || (packet.getUnsignedShort(packet.readerIndex() + 2) & Query.QR) != 0) {
            metrics.dropped();
            return null;
        }
        Query q;
        try {
            q = Query.read(packet);
        } catch (Query.Malformed e) {
            int id = packet.getUnsignedShort(packet.readerIndex());
            int flags = packet.getUnsignedShort(packet.readerIndex() + 2);
            metrics.query("none", FORMERR, null, null);
            return header(alloc, id, reply(flags, FORMERR, false), 0, 0, 0, 0);
        }
        Answer a = answer(q, source);
        metrics.query(a.qtype, a.rcode, a.serving, a.client);
        if (udp && limiter != null) { // TCP is not limited: its source cannot be forged
            switch (limiter.check(source, ResponseRateLimiter.answerKey(a.rcode, a.name, a.type))) {
                case DROP -> {
                    metrics.rateLimited(false);
                    return null;
                }
                case SLIP -> {
                    metrics.rateLimited(true);
                    return encode(alloc, q, a, true);
                }
                default -> { }
            }
        }
        ByteBuf out = encode(alloc, q, a, false);
        if (udp && out.readableBytes() > (q.edns() == null ? 512 : q.edns().payload())) {
            out.release();
            metrics.truncated();
            out = encode(alloc, q, a, true);
        }
        return out;
    }

    /** What one query is answered with, before encoding. */
    private static final class Answer {
        String qtype;
        String name = "";
        int type;
        int rcode = NOERROR;
        boolean authoritative;
        Region serving;
        Region client;
        int scope;
        final List<DnsRecord> answers = new ArrayList<>();
        final List<DnsRecord> authority = new ArrayList<>();
    }

    private Answer answer(Query q, InetAddress source) {
        Answer a = new Answer();
        DnsQuestion question = q.question();
        int type = question.type().intValue();
        a.qtype = qtypeLabel(type);
        a.type = type;
        int opcode = (q.flags() >> 11) & 0xf;
        if (opcode != Query.OPCODE_QUERY) {
            a.rcode = NOTIMP;
            return a;
        }
        if (q.edns() != null && q.edns().version() != 0) {
            a.rcode = BADVERS;
            return a;
        }
        String name = lower(question.name());
        a.name = name;
        String zone = config.zone();
        boolean inZone = name.equals(zone) || name.endsWith("." + zone);
        int qclass = question.dnsClass();
        // not ours; not class IN (ANY too: no server is authoritative for every class, RFC 2181 §6.1); a transfer
        if (!inZone || qclass != CLASS_IN || type == 252 || type == 251) {
            a.rcode = REFUSED;
            return a;
        }
        a.authoritative = true;
        RoutingState s = state.get();
        boolean any = type == DnsRecordType.ANY.intValue();
        Map<Region, List<InetAddress>> addresses = config.records().get(name);
        Map<Region, List<DnsConfig.SrvTarget>> targets = config.services().get(name);
        if (addresses != null || targets != null) {
            locate(a, q, source, s);
        }
        if (name.equals(zone)) {
            if (type == DnsRecordType.SOA.intValue() || any) {
                a.answers.add(soa(s));
            }
            if (type == DnsRecordType.NS.intValue() || any) {
                for (String ns : config.nameservers()) {
                    a.answers.add(raw(zone, DnsRecordType.NS, config.baseTtl(), Names.encode(ns)));
                }
            }
        }
        if (addresses != null && s != null && (type == 1 || type == 28 || any)) {
            AnswerPlan plan = plan(a, s);
            for (Region r : plan.order()) {
                List<InetAddress> list = addresses.get(r);
                if (list != null) {
                    a.serving = r;
                    for (InetAddress ip : list) {
                        boolean v4 = ip instanceof Inet4Address;
                        if ((v4 && type != 28) || (!v4 && type != 1)) {
                            a.answers.add(raw(name, v4 ? DnsRecordType.A : DnsRecordType.AAAA, plan.ttl(),
                                              ip.getAddress()));
                        }
                    }
                    break;
                }
            }
        }
        if (targets != null && s != null && (type == DnsRecordType.SRV.intValue() || any)) {
            AnswerPlan plan = plan(a, s);
            int index = 0;
            for (Region r : plan.order()) {
                List<DnsConfig.SrvTarget> list = targets.get(r);
                if (list == null) {
                    continue;
                }
                if (a.serving == null) {
                    a.serving = r;
                }
                int priority = AnswerPlan.priority(index++);
                for (DnsConfig.SrvTarget t : list) {
                    a.answers.add(raw(name, DnsRecordType.SRV, plan.ttl(), srv(priority, t)));
                }
            }
        }
        if (a.answers.isEmpty()) {
            if (!exists(name)) {
                a.rcode = NXDOMAIN;
            }
            a.authority.add(soa(s)); // negative answers carry the SOA (RFC 2308)
        }
        return a;
    }

    /** Finds the client's region: its EDNS Client Subnet when given, else the packet's source address. */
    private void locate(Answer a, Query q, InetAddress source, RoutingState s) {
        GeoMap.Location where = q.ecs() != null ? geo.locate(q.ecs().full(), q.ecs().source())
                                                : geo.locate(source.getAddress(), source.getAddress().length * 8);
        a.scope = where.scope();
        Region client = where.region();
        if (s != null && !s.router().topology().regions().isEmpty()
            && (client == null || !s.router().topology().contains(client))) {
            client = s.router().topology().regions().get(0); // no network holds it, or not a region of the topology
        }
        a.client = client;
    }

    private AnswerPlan plan(Answer a, RoutingState s) {
        Region client = a.client;
        AnswerPlan plan = AnswerPlan.of(s.router(), s.health(), client, lastHealthy.get(client), clock.millis(),
                                        config.baseTtl(), config.minTtl());
        if (plan.kind() == AnswerPlan.Kind.NO_HEALTHY_REGION) {
            metrics.noHealthyRegion(client);
        } else {
            lastHealthy.put(client, plan.serving());
        }
        return plan;
    }

    /** Whether {@code name} owns records or is an empty non-terminal above a name that does. */
    private boolean exists(String name) {
        if (name.equals(config.zone()) || config.records().containsKey(name)
            || config.services().containsKey(name)) {
            return true;
        }
        String suffix = "." + name;
        for (String owned : config.records().keySet()) {
            if (owned.endsWith(suffix)) {
                return true;
            }
        }
        for (String owned : config.services().keySet()) {
            if (owned.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    private DnsRecord soa(RoutingState s) {
        ByteBuf rdata = Unpooled.buffer();
        rdata.writeBytes(Names.encode(config.nameservers().get(0)));
        rdata.writeBytes(Names.encode(config.hostmaster()));
        rdata.writeInt((int) (s == null ? 0 : s.revision())); // the serial follows the routing state
        rdata.writeInt(3600).writeInt(600).writeInt(604_800);
        rdata.writeInt((int) config.minTtl()); // the negative-caching TTL (RFC 2308)
        return new DefaultDnsRawRecord(config.zone(), DnsRecordType.SOA, config.minTtl(), rdata);
    }

    private static byte[] srv(int priority, DnsConfig.SrvTarget t) {
        byte[] target = Names.encode(t.target());
        byte[] out = new byte[6 + target.length];
        out[0] = (byte) (priority >> 8);
        out[1] = (byte) priority;
        out[2] = (byte) (t.weight() >> 8);
        out[3] = (byte) t.weight();
        out[4] = (byte) (t.port() >> 8);
        out[5] = (byte) t.port();
        System.arraycopy(target, 0, out, 6, target.length);
        return out;
    }

    private static DnsRecord raw(String name, DnsRecordType type, long ttl, byte[] rdata) {
        return new DefaultDnsRawRecord(name, type, ttl, Unpooled.wrappedBuffer(rdata));
    }

    private ByteBuf encode(ByteBufAllocator alloc, Query q, Answer a, boolean truncated) {
        int flags = reply(q.flags(), a.rcode & 0xf, a.authoritative) | (truncated ? TC : 0);
        List<DnsRecord> answers = truncated ? List.of() : a.answers;
        List<DnsRecord> authority = truncated ? List.of() : a.authority;
        ByteBuf out = header(alloc, q.id(), flags, 1, answers.size(), authority.size(), q.edns() == null ? 0 : 1);
        try {
            out.writeBytes(q.wire());
            for (DnsRecord r : answers) {
                ENCODER.encodeRecord(r, out);
            }
            for (DnsRecord r : authority) {
                ENCODER.encodeRecord(r, out);
            }
            if (q.edns() != null) {
                ENCODER.encodeRecord(opt(q, a), out);
            }
        } catch (Exception e) {
            out.release();
            throw new IllegalStateException("cannot encode the answer to " + q.question() + ": " + e, e);
        }
        return out; // the records' buffers are unpooled heap buffers: nothing to release
    }

    /**
     * The OPT record of an answer (RFC 6891): the payload it accepts, the upper bits of an extended rcode, and the
     * client subnet echoed with the scope the answer holds for (RFC 7871 §7.2.1; 0 when it does not depend on it).
     */
    private static DnsRecord opt(Query q, Answer a) {
        ByteBuf options = Unpooled.buffer();
        Query.Ecs ecs = q.ecs();
        if (ecs != null) {
            int scope = a.client != null && a.serving != null ? a.scope : 0;
            options.writeShort(8).writeShort(4 + ecs.address().length);
            options.writeShort(ecs.family()).writeByte(ecs.source()).writeByte(scope).writeBytes(ecs.address());
        }
        long ttl = (long) (a.rcode >> 4) << 24;
        return new DefaultDnsRawRecord("", DnsRecordType.OPT, OWN_PAYLOAD, ttl, options);
    }

    private static ByteBuf header(ByteBufAllocator alloc, int id, int flags, int qd, int an, int ns, int ar) {
        ByteBuf out = alloc.buffer(512);
        out.writeShort(id).writeShort(flags).writeShort(qd).writeShort(an).writeShort(ns).writeShort(ar);
        return out;
    }

    private static int reply(int queryFlags, int rcode, boolean authoritative) {
        return Query.QR | (queryFlags & 0x7800) | (queryFlags & RD) | (authoritative ? AA : 0) | (rcode & 0xf);
    }

    private static String lower(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        return n.endsWith(".") ? n : n + ".";
    }

    /** The metric label of a query type: the common ones by name, the rest as {@code other}. */
    static String qtypeLabel(int type) {
        return switch (type) {
            case 1 -> "A";
            case 2 -> "NS";
            case 6 -> "SOA";
            case 28 -> "AAAA";
            case 33 -> "SRV";
            case 255 -> "ANY";
            default -> "other";
        };
    }
}
