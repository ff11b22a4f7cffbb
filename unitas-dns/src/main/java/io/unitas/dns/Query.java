package io.unitas.dns;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordDecoder;
import io.netty.handler.codec.dns.DnsRecordType;

/**
 * One query, read with Netty's record codec: its header's id and flags, its one question, and its EDNS options
 * (RFC 6891) with the client subnet (RFC 7871) when it carries one.
 *
 * @param id       the query's id
 * @param flags    the query's header flags
 * @param question its question
 * @param wire     its question as sent, echoed as is (a name Netty could not write back is still echoed)
 * @param edns     its OPT record's fields, or {@code null} without EDNS
 * @param ecs      its client subnet, or {@code null}
 */
record Query(int id, int flags, DnsQuestion question, byte[] wire, Edns edns, Ecs ecs) {

    /**
     * The OPT record's fields.
     *
     * @param payload the largest UDP answer the client accepts (never less than 512)
     * @param version the EDNS version
     */
    record Edns(int payload, int version) {
    }

    /**
     * EDNS Client Subnet: the first {@code source} bits of a client's address (RFC 7871 §6).
     *
     * @param family  1 for IPv4, 2 for IPv6
     * @param source  how many bits of {@code address} are given
     * @param address the given bytes (as few as hold {@code source} bits)
     */
    record Ecs(int family, int source, byte[] address) {

        /** The address widened to its family's length, the bits not given zero. */
        byte[] full() {
            byte[] out = new byte[family == 1 ? 4 : 16];
            System.arraycopy(address, 0, out, 0, address.length);
            return out;
        }
    }

    /** A query whose header or question cannot be read: answered FORMERR with its id. */
    static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    static final int QR = 0x8000;
    static final int OPCODE_QUERY = 0;
    private static final int OPTION_ECS = 8;

    /**
     * Reads a query of at least 12 bytes (the caller checks); throws {@link Malformed} for anything RFC 1035, 6891
     * or 7871 forbids, and for trailing garbage.
     */
    static Query read(ByteBuf in) {
        int start = in.readerIndex();
        int id = in.getUnsignedShort(start);
        int flags = in.getUnsignedShort(start + 2);
        int qd = in.getUnsignedShort(start + 4);
        int an = in.getUnsignedShort(start + 6);
        int ns = in.getUnsignedShort(start + 8);
        int ar = in.getUnsignedShort(start + 10);
        if (qd != 1) {
            throw new Malformed("questions: " + qd + " (expected: 1)");
        }
        ByteBuf body = in.duplicate().readerIndex(start + 12);
        try {
            DnsQuestion question = DnsRecordDecoder.DEFAULT.decodeQuestion(body);
            byte[] wire = new byte[body.readerIndex() - start - 12];
            body.getBytes(start + 12, wire);
            for (int i = 0; i < an + ns; i++) {
                release(record(body));
            }
            Edns edns = null;
            Ecs ecs = null;
            for (int i = 0; i < ar; i++) {
                DnsRecord r = record(body);
                try {
                    if (r.type() == DnsRecordType.OPT) {
                        if (edns != null) {
                            throw new Malformed("more than one OPT record");
                        }
                        edns = new Edns(Math.max(512, r.dnsClass()), (int) (r.timeToLive() >> 16) & 0xff);
                        if (r instanceof DnsRawRecord raw) {
                            ecs = options(raw.content());
                        }
                    }
                } finally {
                    release(r);
                }
            }
            if (body.isReadable()) {
                throw new Malformed(body.readableBytes() + " bytes after the last record");
            }
            return new Query(id, flags, question, wire, edns, ecs);
        } catch (Malformed e) {
            throw e;
        } catch (Exception e) { // Netty's decoder: CorruptedFrameException, IndexOutOfBoundsException…
            throw new Malformed(String.valueOf(e.getMessage()));
        }
    }

    private static DnsRecord record(ByteBuf body) throws Exception {
        DnsRecord r = DnsRecordDecoder.DEFAULT.decodeRecord(body);
        if (r == null) {
            throw new Malformed("a record runs past the end of the packet");
        }
        return r;
    }

    private static void release(DnsRecord r) {
        if (r instanceof DnsRawRecord raw) {
            raw.release();
        }
    }

    private static Ecs options(ByteBuf content) {
        ByteBuf o = content.duplicate();
        Ecs ecs = null;
        while (o.isReadable()) {
            if (o.readableBytes() < 4) {
                throw new Malformed("truncated EDNS option");
            }
            int code = o.readUnsignedShort();
            int length = o.readUnsignedShort();
            if (o.readableBytes() < length) {
                throw new Malformed("EDNS option " + code + " runs past its record");
            }
            ByteBuf data = o.readSlice(length);
            if (code == OPTION_ECS) {
                if (ecs != null) {
                    throw new Malformed("more than one client subnet option");
                }
                ecs = ecs(data);
            }
        }
        return ecs;
    }

    /** RFC 7871 §7.1.1: FORMERR for an unknown family, a prefix too long, a scope in a query, or stray bits. */
    private static Ecs ecs(ByteBuf data) {
        if (data.readableBytes() < 4) {
            throw new Malformed("client subnet option of " + data.readableBytes() + " bytes");
        }
        int family = data.readUnsignedShort();
        int source = data.readUnsignedByte();
        int scope = data.readUnsignedByte();
        int bits = family == 1 ? 32 : family == 2 ? 128 : -1;
        if (bits < 0 || source > bits || scope != 0 || data.readableBytes() != (source + 7) / 8) {
            throw new Malformed("client subnet: family " + family + ", source /" + source + ", scope /" + scope
                                + ", " + data.readableBytes() + " address bytes");
        }
        byte[] address = new byte[data.readableBytes()];
        data.readBytes(address);
        if (address.length > 0 && source % 8 != 0 && (address[address.length - 1] & (0xff >> (source % 8))) != 0) {
            throw new Malformed("client subnet: bits set beyond the source prefix /" + source);
        }
        return new Ecs(family, source, address);
    }
}
