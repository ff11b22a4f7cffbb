package io.unitas.resolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** Seed 003 (2.5): a 2-byte count, 4-byte IPv4 addresses, a CRC32 trailer; and the text form. */
class FallbackPoolTest {

    @Provide
    Arbitrary<List<InetAddress>> ipv4s() {
        return Arbitraries.bytes().array(byte[].class).ofSize(4).map(b -> {
            try {
                return InetAddress.getByAddress(b);
            } catch (UnknownHostException e) {
                throw new AssertionError(e);
            }
        }).list().ofMaxSize(50);
    }

    @Property(tries = 200)
    void binary_roundTrips_andIsWhatTheSeedsReaderReads(@ForAll("ipv4s") List<InetAddress> ips) {
        byte[] data = new FallbackPool(ips).encodeBinary();
        assertThat(FallbackPool.decodeBinary(data).addresses()).isEqualTo(ips);
        // the seed's reader: crc32(data[:-4]) == int.from_bytes(data[-4:], 'big'); count = data[0:2] big-endian
        CRC32 crc = new CRC32();
        crc.update(data, 0, data.length - 4);
        long trailer = ((data[data.length - 4] & 0xFFL) << 24) | ((data[data.length - 3] & 0xFF) << 16)
                | ((data[data.length - 2] & 0xFF) << 8) | (data[data.length - 1] & 0xFF);
        assertThat(trailer).isEqualTo(crc.getValue());
        assertThat(((data[0] & 0xFF) << 8) | (data[1] & 0xFF)).isEqualTo(ips.size());
    }

    @Property(tries = 300)
    void anyChangedByte_isRefused(@ForAll("ipv4s") List<InetAddress> ips, @ForAll @IntRange(min = 0, max = 1000) int at,
                                  @ForAll @IntRange(min = 1, max = 255) int flip) {
        byte[] data = new FallbackPool(ips).encodeBinary();
        data[at % data.length] ^= (byte) flip;
        assertThatThrownBy(() -> FallbackPool.decodeBinary(data)).isInstanceOf(IllegalArgumentException.class);
    }

    @Property(tries = 100)
    void aCutOrExtendedFile_isRefusedForItsLength(@ForAll("ipv4s") List<InetAddress> ips,
                                                  @ForAll @IntRange(min = -3, max = 3) int delta) {
        byte[] data = new FallbackPool(ips).encodeBinary();
        if (delta == 0 || data.length + delta < 0) {
            return;
        }
        byte[] changed = Arrays.copyOf(data, data.length + delta);
        assertThatThrownBy(() -> FallbackPool.decodeBinary(changed)).hasMessageStartingWith("length ");
    }

    @Test
    void text_oneAddressPerLine_commentsAndBlankLinesIgnored() throws Exception {
        FallbackPool p = FallbackPool.decodeText("# pool\n10.0.0.1\n\n  10.0.0.2  # eu\r\n2001:db8::1\n");
        assertThat(p.addresses()).containsExactly(InetAddress.getByName("10.0.0.1"),
                InetAddress.getByName("10.0.0.2"), InetAddress.getByName("2001:db8::1"));
        assertThat(FallbackPool.decodeText(p.encodeText())).isEqualTo(p);
    }

    @Test
    void text_namesTheBadLine_andNeverLooksANameUp() {
        assertThatThrownBy(() -> FallbackPool.decodeText("10.0.0.1\nexample.com\n"))
                .hasMessage("line 2: 'example.com' (expected: an IPv4 or IPv6 address)");
        assertThatThrownBy(() -> FallbackPool.decodeText("10.0.0.256\n"))
                .hasMessage("line 1: '10.0.0.256' (expected: an IPv4 or IPv6 address)");
    }

    @Test
    void binary_holdsOnlyIpv4() throws Exception {
        assertThatThrownBy(() -> new FallbackPool(List.of(InetAddress.getByName("::1"))).encodeBinary())
                .hasMessage("address 0:0:0:0:0:0:0:1 (expected: IPv4 in the binary form)");
        assertThat(FallbackPool.decodeBinary(FallbackPool.EMPTY.encodeBinary())).isEqualTo(FallbackPool.EMPTY);
    }

    @Property(tries = 50)
    void aKeyPicksItsAddressByCrc32(@ForAll("ipv4s") List<InetAddress> ips, @ForAll String key) {
        FallbackPool p = new FallbackPool(ips);
        if (ips.isEmpty()) {
            assertThat(p.pick(key)).isNull();
            return;
        }
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(p.pick(key)).isEqualTo(ips.get((int) (crc.getValue() % ips.size())));
        List<InetAddress> copy = new ArrayList<>(ips);
        assertThat(new FallbackPool(copy).pick(key)).isEqualTo(p.pick(key));
    }
}
