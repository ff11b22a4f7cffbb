package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import io.unitas.control.client.state.StateHolder;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;

/**
 * The responder alone, on arbitrary bytes: it never throws, and what it sends is a reply to what it was sent, which
 * a client's decoder reads whole.
 */
class ResponderTest {

    private static Path dir;
    private static Responder responder;

    @BeforeContainer
    static void zone() throws Exception {
        dir = Files.createTempDirectory("unitas-dns-responder");
        DnsConfig config = DnsConfig.read(ZoneFiles.write(dir));
        StateHolder holder = new StateHolder(System::nanoTime, Clock.systemUTC(), Duration.ZERO);
        holder.publish(1, Topology.of("cn", "eu", "us"), null,
                       HealthSnapshot.ofFlags(Map.of(Region.of("cn"), true, Region.of("eu"), false,
                                                     Region.of("us"), true)), WriteFences.none());
        responder = new Responder(config, holder, Clock.systemUTC(), System::nanoTime, new DnsMetrics());
    }

    @AfterContainer
    static void clean() throws Exception {
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    @Property(tries = 2_000)
    void arbitraryBytesNeverThrow_andAnyAnswerCarriesTheQuerysId(@ForAll("packets") byte[] packet) {
        ByteBuf answer = responder.respond(Unpooled.wrappedBuffer(packet), InetAddress.getLoopbackAddress(), true,
                                           ByteBufAllocator.DEFAULT);
        if (answer != null) {
            try {
                assertThat(answer.readableBytes()).isBetween(12, 512);
                assertThat(answer.getUnsignedShort(0)).isEqualTo((packet[0] & 0xff) << 8 | packet[1] & 0xff);
                assertThat(answer.getUnsignedShort(2) & 0x8000).isNotZero(); // QR: a response
                assertThat(records(io.netty.buffer.ByteBufUtil.getBytes(answer))).isTrue();
            } finally {
                answer.release();
            }
        }
    }

    /**
     * Whether {@code m} holds its header's counts of records and nothing after them, every name made of labels
     * that ends with the root or with a compression pointer to an earlier name (names may hold any bytes, RFC 2181
     * §11, so this reads them itself rather than through a decoder that wants host names).
     */
    private static boolean records(byte[] m) {
        int at = 12;
        for (int i = 0; i < ((m[4] & 0xff) << 8 | (m[5] & 0xff)); i++) {
            at = name(m, at, at) + 4;
        }
        int rrs = ((m[6] & 0xff) << 8 | (m[7] & 0xff)) + ((m[8] & 0xff) << 8 | (m[9] & 0xff))
                  + ((m[10] & 0xff) << 8 | (m[11] & 0xff));
        for (int i = 0; i < rrs; i++) {
            at = name(m, at, at) + 8;
            if (at + 2 > m.length) {
                return false;
            }
            at += 2 + ((m[at] & 0xff) << 8 | (m[at + 1] & 0xff));
        }
        return at == m.length;
    }

    /** The index after the name at {@code at}; a pointer must point before {@code before}, at a name. */
    private static int name(byte[] m, int at, int before) {
        while (true) {
            assertThat(at).as("a name inside the message").isLessThan(m.length);
            int label = m[at] & 0xff;
            if ((label & 0xc0) == 0xc0) {
                int target = (label & 0x3f) << 8 | (m[at + 1] & 0xff);
                assertThat(target).as("a pointer to an earlier name").isBetween(12, before - 1);
                name(m, target, target);
                return at + 2;
            }
            assertThat(label).as("a label's length").isLessThan(64);
            at += 1 + label;
            if (label == 0) {
                return at;
            }
        }
    }

    /** Valid queries with bytes flipped, cut or appended, and pure noise. */
    @Provide
    Arbitrary<byte[]> packets() {
        byte[] www = RawDns.query(1, "www.shop.example.", 1, 1232, "10.1.0.0", 16);
        byte[] srv = RawDns.query(2, "_api._tcp.shop.example.", 33, 0, null, 0);
        Arbitrary<byte[]> mutated = Arbitraries.of(www, srv).flatMap(base -> Arbitraries.integers()
                .between(0, base.length - 1).list().ofMaxSize(4).flatMap(at -> Arbitraries.bytes().list()
                        .ofSize(at.size()).map(values -> {
                            byte[] p = base.clone();
                            for (int i = 0; i < at.size(); i++) {
                                p[at.get(i)] = values.get(i);
                            }
                            return p;
                        })));
        Arbitrary<byte[]> cut = Arbitraries.of(www, srv).flatMap(base -> Arbitraries.integers()
                .between(0, base.length).map(n -> java.util.Arrays.copyOf(base, n)));
        Arbitrary<byte[]> noise = Arbitraries.bytes().array(byte[].class).ofMaxSize(600);
        return Arbitraries.oneOf(mutated, cut, noise);
    }
}
