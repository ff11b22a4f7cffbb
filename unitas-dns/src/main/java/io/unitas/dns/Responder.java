package io.unitas.dns;

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
import io.netty.util.concurrent.FastThreadLocal;
import io.unitas.control.client.state.RoutingState;
import io.unitas.core.Region;

/**
 * Answers one query packet with one answer packet, the way BIND, gdnsd and Knot do: authoritative answers inside
 * the zone (SOA and NS at the apex, NXDOMAIN for a name that does not exist, NODATA for a type it does not have),
 * REFUSED outside it, FORMERR for what cannot be read, NOTIMP for opcodes other than QUERY; A, AAAA and SRV from
 * the region {@link AnswerPlan} chooses for the client's region. Never throws on bad input.
 *
 * <p>Answers are written byte by byte into a scratch array of the event loop's own, then copied once into the
 * packet's buffer: record data is kept in wire form from the start, and every owner name is a compression pointer
 * to the question (RFC 1035 §4.1.4), so no record object, name string or per-byte buffer check is made per answer.
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
    private static final int TYPE_A = 1;
    private static final int TYPE_NS = 2;
    private static final int TYPE_SOA = 6;
    private static final int TYPE_AAAA = 28;
    private static final int TYPE_SRV = 33;
    private static final int TYPE_OPT = 41;
    private static final int TYPE_ANY = 255;
    /** The UDP payload it offers in its own OPT record (the DNS flag day 2020 value). */
    static final int OWN_PAYLOAD = 1232;
    /** The largest message: what a TCP frame's two-byte length can carry. */
    private static final int MAX_MESSAGE = 65_535;
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[MAX_MESSAGE + 64]; // room for the OPT record past a full answer, checked after it
        }
    };

    private final DnsConfig config;
    private final Supplier<RoutingState> state;
    private final Clock clock;
    private final DnsMetrics metrics;
    private final GeoMap geo;
    private final ResponseRateLimiter limiter;
    private final Map<Region, Region> lastHealthy = new ConcurrentHashMap<>();
    /** Each name's addresses per region in wire form: 4 bytes for A, 16 for AAAA. */
    private final Map<String, Map<Region, List<byte[]>>> addresses = new java.util.HashMap<>();
    /** Each SRV owner's targets per region in wire form after the priority: weight, port, target. */
    private final Map<String, Map<Region, List<byte[]>>> targets = new java.util.HashMap<>();
    private final List<byte[]> nameservers = new ArrayList<>();
    /** The SOA's data before its serial: the primary's name and the mailbox. */
    private final byte[] soaNames;
    /** The zone's name after a dot: what a name in the zone ends with. */
    private final String dotZone;
    /** How many labels the zone's name has (the apex is that many labels from the end of a name in it). */
    private final int zoneLabels;

    /** A responder whose rate limiting, if the configuration asks for it, runs on {@code ticker} (nanoseconds). */
    Responder(DnsConfig config, Supplier<RoutingState> state, Clock clock, LongSupplier ticker, DnsMetrics metrics) {
        this.config = config;
        this.state = state;
        this.clock = clock;
        this.metrics = metrics;
        this.geo = new GeoMap(config.geo());
        this.limiter = config.rateLimit() == null ? null : new ResponseRateLimiter(config.rateLimit(), ticker);
        config.records().forEach((name, byRegion) -> {
            Map<Region, List<byte[]>> wire = new java.util.HashMap<>();
            byRegion.forEach((r, list) -> wire.put(r, list.stream().map(InetAddress::getAddress).toList()));
            addresses.put(name, wire);
        });
        config.services().forEach((name, byRegion) -> {
            Map<Region, List<byte[]>> wire = new java.util.HashMap<>();
            byRegion.forEach((r, list) -> wire.put(r, list.stream().map(Responder::srvTail).toList()));
            targets.put(name, wire);
        });
        config.nameservers().forEach(ns -> nameservers.add(Names.encode(ns)));
        byte[] primary = Names.encode(config.nameservers().get(0));
        byte[] mailbox = Names.encode(config.hostmaster());
        this.soaNames = java.util.Arrays.copyOf(primary, primary.length + mailbox.length);
        System.arraycopy(mailbox, 0, soaNames, primary.length, mailbox.length);
        this.dotZone = "." + config.zone();
        this.zoneLabels = config.zone().split("\\.").length;
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
            return alloc.directBuffer(12).writeShort(id).writeShort(reply(flags, FORMERR, false)).writeLong(0);
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
                    byte[] scratch = SCRATCH.get();
                    int length = write(scratch, q, a, true);
                    return alloc.directBuffer(length).writeBytes(scratch, 0, length);
                }
                default -> { }
            }
        }
        byte[] scratch = SCRATCH.get();
        int length = write(scratch, q, a, false);
        if (udp && length > (q.edns() == null ? 512 : q.edns().payload())) {
            metrics.truncated();
            length = write(scratch, q, a, true);
        }
        return alloc.directBuffer(length).writeBytes(scratch, 0, length);
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
        /** The client's subnet as a spillover key, or {@code null} where the state has no bands. */
        String key;
        int scope;
        final List<Rr> answers = new ArrayList<>();
        final List<Rr> authority = new ArrayList<>();
    }

    /**
     * One record to write: owned by the question's name or the zone's apex, its data in wire form, after a
     * two-byte SRV priority when {@code priority} is 0 or more.
     */
    private record Rr(boolean apex, int type, long ttl, int priority, byte[] data) {
    }

    private Answer answer(Query q, InetAddress source) {
        Answer a = new Answer();
        int type = q.type();
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
        String name = q.name();
        a.name = name;
        String zone = config.zone();
        boolean inZone = name.equals(zone) || (name.endsWith(dotZone)
                                                && separates(name, name.length() - zone.length() - 1));
        // not ours; not class IN (ANY too: no server is authoritative for every class, RFC 2181 §6.1); a transfer
        if (!inZone || q.qclass() != CLASS_IN || type == 252 || type == 251) {
            a.rcode = REFUSED;
            return a;
        }
        a.authoritative = true;
        RoutingState s = state.get();
        boolean any = type == TYPE_ANY;
        Map<Region, List<byte[]>> ips = addresses.get(name);
        Map<Region, List<byte[]>> srv = targets.get(name);
        if (ips != null || srv != null) {
            locate(a, q, source, s);
        }
        if (name.equals(zone)) {
            if (type == TYPE_SOA || any) {
                a.answers.add(soa(s));
            }
            if (type == TYPE_NS || any) {
                for (byte[] ns : nameservers) {
                    a.answers.add(new Rr(true, TYPE_NS, config.baseTtl(), -1, ns));
                }
            }
        }
        if (ips != null && s != null && (type == TYPE_A || type == TYPE_AAAA || any)) {
            AnswerPlan plan = plan(a, s);
            for (Region r : plan.order()) {
                List<byte[]> list = ips.get(r);
                if (list != null) {
                    a.serving = r;
                    for (byte[] ip : list) {
                        boolean v4 = ip.length == 4;
                        if ((v4 && type != TYPE_AAAA) || (!v4 && type != TYPE_A)) {
                            a.answers.add(new Rr(false, v4 ? TYPE_A : TYPE_AAAA, plan.ttl(), -1, ip));
                        }
                    }
                    break;
                }
            }
        }
        if (srv != null && s != null && (type == TYPE_SRV || any)) {
            AnswerPlan plan = plan(a, s);
            int index = 0;
            for (Region r : plan.order()) {
                List<byte[]> list = srv.get(r);
                if (list == null) {
                    continue;
                }
                if (a.serving == null) {
                    a.serving = r;
                }
                int priority = AnswerPlan.priority(index++);
                for (byte[] t : list) {
                    a.answers.add(new Rr(false, TYPE_SRV, plan.ttl(), priority, t));
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

    /** Whether the dot at {@code at} separates labels: not one a label holds, escaped by an odd run of '\\'. */
    private static boolean separates(String name, int at) {
        int backslashes = 0;
        while (at - 1 - backslashes >= 0 && name.charAt(at - 1 - backslashes) == '\\') {
            backslashes++;
        }
        return backslashes % 2 == 0;
    }

    /** Finds the client's region: its EDNS Client Subnet when given, else the packet's source address. */
    private void locate(Answer a, Query q, InetAddress source, RoutingState s) {
        GeoMap.Location where = q.ecs() != null ? geo.locate(q.ecs().full(), q.ecs().source())
                                                : geo.locate(source.getAddress(), source.getAddress().length * 8);
        if (s != null && s.snapshot().spills()) { // the band a client spills over by: only where bands exist
            a.key = q.ecs() != null ? AnswerPlan.clientKey(q.ecs().full(), q.ecs().source())
                                    : AnswerPlan.clientKey(source.getAddress(), source.getAddress().length * 8);
        }
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
        AnswerPlan plan = AnswerPlan.of(s.snapshot(), client, a.key, lastHealthy.get(client), clock.millis(),
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

    private Rr soa(RoutingState s) {
        byte[] data = java.util.Arrays.copyOf(soaNames, soaNames.length + 20);
        int at = soaNames.length;
        at = u32(data, at, s == null ? 0 : s.revision()); // the serial follows the routing state
        at = u32(data, at, 3600);
        at = u32(data, at, 600);
        at = u32(data, at, 604_800);
        u32(data, at, config.minTtl()); // the negative-caching TTL (RFC 2308)
        return new Rr(true, TYPE_SOA, config.minTtl(), -1, data);
    }

    /** An SRV target's data after its priority: weight, port, the target's name (RFC 2782). */
    private static byte[] srvTail(DnsConfig.SrvTarget t) {
        byte[] target = Names.encode(t.target());
        byte[] out = new byte[4 + target.length];
        u16(out, 0, t.weight());
        u16(out, 2, t.port());
        System.arraycopy(target, 0, out, 4, target.length);
        return out;
    }

    /**
     * Writes the answer into {@code out} and returns its length: the header, the question as sent, the records
     * (none when {@code truncated}, then TC is set) and the OPT record when the query had one. Owner names point at
     * the question's name (offset 12) or, for the apex, at the zone's labels within it.
     */
    private int write(byte[] out, Query q, Answer a, boolean truncated) {
        List<Rr> answers = truncated ? List.of() : a.answers;
        List<Rr> authority = truncated ? List.of() : a.authority;
        int at = u16(out, 0, q.id());
        at = u16(out, at, reply(q.flags(), a.rcode & 0xf, a.authoritative) | (truncated ? TC : 0));
        at = u16(out, at, 1);
        at = u16(out, at, answers.size());
        at = u16(out, at, authority.size());
        at = u16(out, at, q.edns() == null ? 0 : 1);
        byte[] question = q.wire();
        System.arraycopy(question, 0, out, at, question.length);
        at += question.length;
        int apex = answers.isEmpty() && authority.isEmpty() ? 12 : 12 + apexOffset(question);
        for (Rr r : answers) {
            at = record(out, at, r, apex);
        }
        for (Rr r : authority) {
            at = record(out, at, r, apex);
        }
        if (q.edns() != null) {
            at = opt(out, at, q, a);
        }
        if (at > MAX_MESSAGE) {
            throw new IllegalStateException("an answer longer than " + MAX_MESSAGE + " bytes (expected: fewer"
                                            + " records per name)");
        }
        return at;
    }

    private static int record(byte[] out, int at, Rr r, int apex) {
        int length = r.data().length + (r.priority() >= 0 ? 2 : 0);
        if (at + 12 + length > MAX_MESSAGE) {
            throw new IllegalStateException("an answer longer than " + MAX_MESSAGE + " bytes (expected: fewer"
                                            + " records per name)");
        }
        at = u16(out, at, 0xc000 | (r.apex() ? apex : 12));
        at = u16(out, at, r.type());
        at = u16(out, at, CLASS_IN);
        at = u32(out, at, r.ttl());
        at = u16(out, at, length);
        if (r.priority() >= 0) {
            at = u16(out, at, r.priority());
        }
        System.arraycopy(r.data(), 0, out, at, r.data().length);
        return at + r.data().length;
    }

    /** Where the zone's labels start in the question's name: after its first labels beyond the zone's count. */
    private int apexOffset(byte[] question) {
        int labels = 0;
        for (int i = 0; question[i] != 0; i += 1 + question[i]) {
            labels++;
        }
        int at = 0;
        for (int skip = labels - zoneLabels; skip > 0; skip--) {
            at += 1 + question[at];
        }
        return at;
    }

    /**
     * The OPT record of an answer (RFC 6891): the payload it accepts, the upper bits of an extended rcode, and the
     * client subnet echoed with the scope the answer holds for (RFC 7871 §7.2.1; 0 when it does not depend on it).
     */
    private static int opt(byte[] out, int at, Query q, Answer a) {
        Query.Ecs ecs = q.ecs();
        out[at++] = 0; // the root
        at = u16(out, at, TYPE_OPT);
        at = u16(out, at, OWN_PAYLOAD);
        at = u32(out, at, (long) (a.rcode >> 4) << 24);
        if (ecs == null) {
            return u16(out, at, 0);
        }
        int scope = a.client != null && a.serving != null ? a.scope : 0;
        at = u16(out, at, 8 + ecs.address().length);
        at = u16(out, at, 8);
        at = u16(out, at, 4 + ecs.address().length);
        at = u16(out, at, ecs.family());
        out[at++] = (byte) ecs.source();
        out[at++] = (byte) scope;
        System.arraycopy(ecs.address(), 0, out, at, ecs.address().length);
        return at + ecs.address().length;
    }

    private static int u16(byte[] out, int at, int v) {
        out[at] = (byte) (v >> 8);
        out[at + 1] = (byte) v;
        return at + 2;
    }

    private static int u32(byte[] out, int at, long v) {
        out[at] = (byte) (v >> 24);
        out[at + 1] = (byte) (v >> 16);
        out[at + 2] = (byte) (v >> 8);
        out[at + 3] = (byte) v;
        return at + 4;
    }

    private static int reply(int queryFlags, int rcode, boolean authoritative) {
        return Query.QR | (queryFlags & 0x7800) | (queryFlags & RD) | (authoritative ? AA : 0) | (rcode & 0xf);
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
