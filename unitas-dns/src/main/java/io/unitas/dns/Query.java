package io.unitas.dns;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;

/**
 * One query, read straight from its bytes (no record objects: Netty's built one per record and ran each name through
 * {@link java.net.IDN}, a tenth of the server's time under load): its header's id and flags, its one question, and
 * its EDNS options (RFC 6891) with the client subnet (RFC 7871) when it carries one.
 *
 * @param id    the query's id
 * @param flags the query's header flags
 * @param name  the question's name, lower case, absolute ({@code www.shop.example.}; the root is {@code .}); a
 *              label's own dot or backslash is escaped ({@code \.}), as in presentation form, so it never matches
 *              a name of the zone
 * @param type  the question's type
 * @param qclass the question's class
 * @param wire  its question as sent (name, type, class), echoed as is
 * @param edns  its OPT record's fields, or {@code null} without EDNS
 * @param ecs   its client subnet, or {@code null}
 */
record Query(int id, int flags, String name, int type, int qclass, byte[] wire, Edns edns, Ecs ecs) {

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
    private static final int TYPE_OPT = 41;
    /** A name's longest wire form (RFC 1035 §3.1). */
    private static final int MAX_NAME = 255;
    /** Each thread's room for a name's text, every byte of it possibly escaped: no garbage per query. */
    private static final io.netty.util.concurrent.FastThreadLocal<byte[]> NAME_TEXT =
            new io.netty.util.concurrent.FastThreadLocal<>() {
                @Override
                protected byte[] initialValue() {
                    return new byte[2 * MAX_NAME];
                }
            };

    /**
     * Reads a query of at least 12 bytes (the caller checks); throws {@link Malformed} for anything RFC 1035, 6891
     * or 7871 forbids, and for trailing garbage.
     */
    static Query read(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        int id = in.getUnsignedShort(start);
        int flags = in.getUnsignedShort(start + 2);
        int qd = in.getUnsignedShort(start + 4);
        int an = in.getUnsignedShort(start + 6);
        int ns = in.getUnsignedShort(start + 8);
        int ar = in.getUnsignedShort(start + 10);
        if (qd != 1) {
            throw new Malformed("questions: " + qd + " (expected: 1)");
        }
        byte[] text = NAME_TEXT.get();
        int length = 0;
        int at = start + 12;
        int wireLength = 0;
        while (true) {
            need(in, at, 1, end);
            int label = in.getUnsignedByte(at++);
            wireLength += 1 + label;
            if (label == 0) {
                break;
            }
            if ((label & 0xc0) != 0) { // nothing precedes the question for a pointer to point at
                throw new Malformed("question: a compression pointer or extended label (expected: labels)");
            }
            if (wireLength > MAX_NAME) {
                throw new Malformed("question: a name longer than " + MAX_NAME + " bytes");
            }
            need(in, at, label, end);
            for (int i = 0; i < label; i++) {
                byte b = in.getByte(at++);
                if (b >= 'A' && b <= 'Z') {
                    b += 'a' - 'A';
                } else if (b == '.' || b == '\\') {
                    text[length++] = '\\';
                }
                text[length++] = b;
            }
            text[length++] = '.';
        }
        need(in, at, 4, end);
        int type = in.getUnsignedShort(at);
        int qclass = in.getUnsignedShort(at + 2);
        at += 4;
        byte[] wire = new byte[at - start - 12];
        in.getBytes(start + 12, wire);
        String name = length == 0 ? "." : new String(text, 0, length, StandardCharsets.ISO_8859_1);
        for (int i = 0; i < an + ns; i++) {
            at = skipName(in, at, end);
            need(in, at, 10, end);
            int rdLength = in.getUnsignedShort(at + 8);
            at += 10;
            need(in, at, rdLength, end);
            at += rdLength;
        }
        Edns edns = null;
        Ecs ecs = null;
        for (int i = 0; i < ar; i++) {
            int owner = at;
            at = skipName(in, at, end);
            need(in, at, 10, end);
            int rType = in.getUnsignedShort(at);
            int rClass = in.getUnsignedShort(at + 2);
            long ttl = in.getUnsignedInt(at + 4);
            int rdLength = in.getUnsignedShort(at + 8);
            at += 10;
            need(in, at, rdLength, end);
            if (rType == TYPE_OPT) {
                if (edns != null) {
                    throw new Malformed("more than one OPT record");
                }
                if (at - 10 - owner != 1) {
                    throw new Malformed("an OPT record not owned by the root (RFC 6891 §6.1.2)");
                }
                edns = new Edns(Math.max(512, rClass), (int) (ttl >> 16) & 0xff);
                ecs = options(in.slice(at, rdLength));
            }
            at += rdLength;
        }
        if (at != end) {
            throw new Malformed((end - at) + " bytes after the last record");
        }
        return new Query(id, flags, name, type, qclass, wire, edns, ecs);
    }

    /** Fails unless {@code n} bytes from {@code at} are inside the packet. */
    private static void need(ByteBuf in, int at, int n, int end) {
        if (at + n > end) {
            throw new Malformed("a record runs past the end of the packet");
        }
    }

    /** The index after a record's owner name: labels, ending with the root or a compression pointer. */
    private static int skipName(ByteBuf in, int at, int end) {
        int length = 0;
        while (true) {
            need(in, at, 1, end);
            int label = in.getUnsignedByte(at);
            if ((label & 0xc0) == 0xc0) {
                need(in, at, 2, end);
                return at + 2;
            }
            if ((label & 0xc0) != 0) {
                throw new Malformed("an extended label type (RFC 6891 §5: none is defined)");
            }
            length += 1 + label;
            if (length > MAX_NAME) {
                throw new Malformed("a name longer than " + MAX_NAME + " bytes");
            }
            need(in, at, 1 + label, end);
            at += 1 + label;
            if (label == 0) {
                return at;
            }
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
