package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.netty.util.NetUtil;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import io.unitas.core.Region;

class GeoMapTest {

    private static final GeoMap ISSUE = new GeoMap(List.of(geo("10.1.0.0/16", "cn"), geo("10.2.0.0/16", "eu"),
                                                           geo("0.0.0.0/0", "us")));

    @Test
    void theMostSpecificNetworkWins_andTheScopeIsItsPrefix() {
        assertThat(ISSUE.locate(ip("10.1.7.9"), 32)).isEqualTo(new GeoMap.Location(Region.of("cn"), 16));
        assertThat(ISSUE.locate(ip("10.2.0.1"), 32)).isEqualTo(new GeoMap.Location(Region.of("eu"), 16));
    }

    @Test
    void aClientOutsideEveryMoreSpecificNetwork_getsTheScopeThatExcludesThem() {
        // 192.0.2.1 differs from 10.1.0.0 and 10.2.0.0 in its first bit: the answer holds for 128.0.0.0/1
        assertThat(ISSUE.locate(ip("192.0.2.1"), 32)).isEqualTo(new GeoMap.Location(Region.of("us"), 1));
        // 10.128.0.1 shares 8 bits with both: the answer holds for 10.128.0.0/9 and no wider
        assertThat(ISSUE.locate(ip("10.128.0.1"), 32)).isEqualTo(new GeoMap.Location(Region.of("us"), 9));
    }

    @Test
    void onlyNetworksWithinTheKnownBitsCanMatch() {
        // an ECS source of /8 says nothing about the second byte: only 0.0.0.0/0 applies
        assertThat(ISSUE.locate(ip("10.0.0.0"), 8).region()).isEqualTo(Region.of("us"));
        assertThat(ISSUE.locate(ip("10.1.0.0"), 16).region()).isEqualTo(Region.of("cn"));
    }

    @Test
    void anAddressNoNetworkHolds_hasNoRegion() {
        GeoMap v4only = new GeoMap(List.of(geo("10.0.0.0/8", "cn")));
        assertThat(v4only.locate(ip("2001:db8::1"), 128).region()).isNull();
        assertThat(v4only.locate(ip("11.0.0.1"), 32).region()).isNull();
    }

    @Test
    void aBadCidrSaysWhatWasExpected() {
        assertThatThrownBy(() -> Cidr.parse("10.1.0.0/33")).hasMessage("'10.1.0.0/33' (expected: a prefix from /0 to /32)");
        assertThatThrownBy(() -> Cidr.parse("10.1.0/16"))
                .hasMessage("'10.1.0/16' (expected: an IPv4 or IPv6 address before the /)");
        assertThatThrownBy(() -> Cidr.parse("10.1.0.0"))
                .hasMessage("'10.1.0.0' (expected: address/prefix, e.g. 10.1.0.0/16)");
        assertThat(Cidr.parse("10.1.2.3/16")).isEqualTo(Cidr.parse("10.1.0.0/16"));
    }

    @Property
    void theRegionIsTheLongestMatchingPrefix(@ForAll("rules") List<DnsConfig.Geo> rules,
                                             @ForAll("addresses") byte[] address) {
        DnsConfig.Geo best = null;
        for (DnsConfig.Geo g : rules) { // the specification: longest prefix, first listed among equals
            if (g.cidr().contains(address) && (best == null || g.cidr().prefix() > best.cidr().prefix())) {
                best = g;
            }
        }
        assertThat(new GeoMap(rules).locate(address, 32).region()).isEqualTo(best == null ? null : best.region());
    }

    @Property
    void everyAddressWithinTheScopeGetsTheSameRegion(@ForAll("rules") List<DnsConfig.Geo> rules,
                                                     @ForAll("addresses") byte[] address,
                                                     @ForAll("addresses") byte[] other) {
        GeoMap map = new GeoMap(rules);
        GeoMap.Location where = map.locate(address, 32);
        byte[] neighbour = withPrefix(address, other, where.scope());
        assertThat(map.locate(neighbour, 32).region()).isEqualTo(where.region());
    }

    @Property
    void theScopeIsNeverShorterThanTheMatchedNetwork(@ForAll("rules") List<DnsConfig.Geo> rules,
                                                     @ForAll("addresses") byte[] address,
                                                     @ForAll @IntRange(max = 32) int known) {
        GeoMap.Location where = new GeoMap(rules).locate(address, known);
        assertThat(where.scope()).isBetween(0, 32);
    }

    /** The first {@code bits} of {@code a}, the rest from {@code b}. */
    private static byte[] withPrefix(byte[] a, byte[] b, int bits) {
        byte[] out = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - i * 8));
            int mask = 0xff00 >> keep & 0xff;
            out[i] = (byte) ((a[i] & mask) | (b[i] & ~mask & 0xff));
        }
        return out;
    }

    @Provide
    Arbitrary<List<DnsConfig.Geo>> rules() {
        // few distinct first bytes, so that networks nest and overlap often
        Arbitrary<DnsConfig.Geo> one = Combinators.combine(addresses(), Arbitraries.integers().between(0, 32),
                                                           Arbitraries.of("cn", "eu", "us"))
                .as((a, p, r) -> new DnsConfig.Geo(new Cidr(a, p), Region.of(r)));
        return one.list().ofMinSize(0).ofMaxSize(8);
    }

    @Provide
    Arbitrary<byte[]> addresses() {
        return Combinators.combine(Arbitraries.of((byte) 10, (byte) 11, (byte) 192),
                                   Arbitraries.of((byte) 1, (byte) 2, (byte) 3),
                                   Arbitraries.bytes(), Arbitraries.bytes())
                .as((a, b, c, d) -> new byte[] {a, b, c, d});
    }

    static DnsConfig.Geo geo(String cidr, String region) {
        return new DnsConfig.Geo(Cidr.parse(cidr), Region.of(region));
    }

    static byte[] ip(String text) {
        return NetUtil.createByteArrayFromIpAddressString(text);
    }
}
