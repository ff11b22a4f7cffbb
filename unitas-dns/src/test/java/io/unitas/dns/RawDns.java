package io.unitas.dns;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordDecoder;

/** A DNS client of hand-built packets over a plain DatagramSocket or Socket: what the server must stand up to. */
final class RawDns {

    private final InetSocketAddress server;

    RawDns(int port) {
        this.server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    /** A query for {@code name} of {@code type}, RD set; EDNS with {@code payload} when above 0, ECS when given. */
    static byte[] query(int id, String name, int type, int payload, String ecsAddress, int ecsSource) {
        return query(id, name, type, 1, payload, ecsAddress, ecsSource);
    }

    /** A query as {@link #query(int, String, int, int, String, int)}, of class {@code qclass}. */
    static byte[] query(int id, String name, int type, int qclass, int payload, String ecsAddress, int ecsSource) {
        ByteBuffer b = ByteBuffer.allocate(512);
        b.putShort((short) id).putShort((short) 0x0100).putShort((short) 1).putShort((short) 0).putShort((short) 0)
         .putShort((short) (payload > 0 ? 1 : 0));
        b.put(Names.encode(name)).putShort((short) type).putShort((short) qclass);
        if (payload > 0) {
            b.put((byte) 0).putShort((short) 41).putShort((short) payload).putInt(0);
            if (ecsAddress == null) {
                b.putShort((short) 0);
            } else {
                byte[] a = Arrays.copyOf(GeoMapTest.ip(ecsAddress), (ecsSource + 7) / 8);
                b.putShort((short) (8 + a.length)).putShort((short) 8).putShort((short) (4 + a.length))
                 .putShort((short) (a.length > 4 || ecsAddress.contains(":") ? 2 : 1)).put((byte) ecsSource)
                 .put((byte) 0).put(a);
            }
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    /** Sends {@code packet} over UDP; the answer, or {@code null} when none came within {@code timeoutMs}. */
    Answer udp(byte[] packet, int timeoutMs) {
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(timeoutMs);
            s.send(new DatagramPacket(packet, packet.length, server));
            DatagramPacket in = new DatagramPacket(new byte[65_535], 65_535);
            s.receive(in);
            return Answer.read(Arrays.copyOf(in.getData(), in.getLength()));
        } catch (SocketTimeoutException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Answer udp(byte[] packet) {
        return udp(packet, 5_000);
    }

    /** Sends every packet over one TCP connection, length-prefixed; their answers in order. */
    List<Answer> tcp(byte[]... packets) {
        try (Socket s = new Socket(server.getAddress(), server.getPort())) {
            s.setSoTimeout(5_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            for (byte[] p : packets) {
                out.writeShort(p.length);
                out.write(p);
            }
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            List<Answer> answers = new ArrayList<>();
            for (int i = 0; i < packets.length; i++) {
                byte[] a = new byte[in.readUnsignedShort()];
                in.readFully(a);
                answers.add(Answer.read(a));
            }
            return answers;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One answer: header fields and its records, decoded by Netty's record decoder (names as Netty writes them). */
    record Answer(int id, int flags, int rcode, List<Rr> answers, List<Rr> authority, List<Rr> additional,
                  int size) {

        boolean authoritative() {
            return (flags & 0x0400) != 0;
        }

        boolean truncated() {
            return (flags & 0x0200) != 0;
        }

        static Answer read(byte[] bytes) {
            ByteBuf b = Unpooled.wrappedBuffer(bytes);
            int id = b.readUnsignedShort();
            int flags = b.readUnsignedShort();
            int qd = b.readUnsignedShort();
            int an = b.readUnsignedShort();
            int ns = b.readUnsignedShort();
            int ar = b.readUnsignedShort();
            try {
                for (int i = 0; i < qd; i++) {
                    DnsRecordDecoder.DEFAULT.decodeQuestion(b);
                }
                return new Answer(id, flags, flags & 0xf, records(b, an), records(b, ns), records(b, ar),
                                  bytes.length);
            } catch (Exception e) {
                throw new AssertionError("unreadable answer " + ByteBufUtil.hexDump(bytes), e);
            }
        }

        private static List<Rr> records(ByteBuf b, int n) throws Exception {
            List<Rr> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                DnsRecord r = DnsRecordDecoder.DEFAULT.decodeRecord(b);
                byte[] data = r instanceof DnsRawRecord raw ? ByteBufUtil.getBytes(raw.content()) : new byte[0];
                out.add(new Rr(r.name(), r.type().intValue(), r.dnsClass(), r.timeToLive(), data));
            }
            return out;
        }
    }

    /** One record as sent. */
    record Rr(String name, int type, int dnsClass, long ttl, byte[] data) {

        String address() {
            try {
                return InetAddress.getByAddress(data).getHostAddress();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** SRV as "priority weight port target". */
        String srv() {
            ByteBuf b = Unpooled.wrappedBuffer(data);
            int priority = b.readUnsignedShort();
            int weight = b.readUnsignedShort();
            int port = b.readUnsignedShort();
            StringBuilder target = new StringBuilder();
            for (int len = b.readUnsignedByte(); len > 0; len = b.readUnsignedByte()) {
                target.append(b.readCharSequence(len, java.nio.charset.StandardCharsets.US_ASCII)).append('.');
            }
            return priority + " " + weight + " " + port + " " + target;
        }

        /** The ECS option of an OPT record: "family/source/scope". */
        String ecs() {
            ByteBuf b = Unpooled.wrappedBuffer(data);
            while (b.isReadable()) {
                int code = b.readUnsignedShort();
                int len = b.readUnsignedShort();
                ByteBuf o = b.readSlice(len);
                if (code == 8) {
                    return o.readUnsignedShort() + "/" + o.readUnsignedByte() + "/" + o.readUnsignedByte();
                }
            }
            return null;
        }
    }
}
