package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whose stamps the gateway follows: address literals and CIDR ranges, matched bit by bit, never by a host name; and
 * certificate names, matched against a real certificate's alternative names and common name.
 */
class TrustedPeersTest {

    @TempDir
    static Path certificates;
    static PeerCertificates certs;

    @BeforeAll
    static void certificates() {
        certs = PeerCertificates.make(certificates);
    }

    @ParameterizedTest(name = "{0} names the peer's certificate: {1}")
    @CsvSource({
            "dns:gw.eu.test,                   true",
            "dns:GW.EU.test,                   true",
            "dns:gw.cn.test,                   false",
            "dns:gw-eu,                        false",
            "uri:spiffe://unitas/gateway/eu,   true",
            "uri:spiffe://unitas/gateway/cn,   false",
            "uri:gw.eu.test,                   false",
            "cn:gw-eu,                         true",
            "cn:GW-EU,                         true",
            "cn:gw.eu.test,                    false",
    })
    void aCertificateName_trustsExactlyTheCertificateThatCarriesIt(String peer, boolean trusted) throws Exception {
        assertThat(TrustedPeers.of(List.of(peer)).trusts(certs.x509("peer"))).isEqualTo(trusted);
    }

    @Test
    void certificateNames_trustNoAddress_andAddressesTrustNoCertificate() throws Exception {
        assertThat(TrustedPeers.of(List.of("dns:gw.eu.test")).trusts(from("127.0.0.1"))).isFalse();
        assertThat(TrustedPeers.of(List.of("0.0.0.0/0")).trusts(certs.x509("peer"))).isFalse();
        assertThat(TrustedPeers.of(List.of("dns:gw.eu.test")).trusts((java.security.cert.X509Certificate) null))
                .isFalse();
        assertThat(TrustedPeers.of(List.of("dns:gw.eu.test", "10.1.0.0/16")).trusts(from("10.1.2.3"))).isTrue();
    }

    @ParameterizedTest(name = "''{0}'' is refused")
    @ValueSource(strings = {"dns:", "cn: gw-eu", "uri:", "dns:gw.eu.test "})
    void aCertificateNameWithoutAName_isRefused_namingIt(String peer) {
        assertThat(TrustedPeers.problem(peer)).startsWith("'" + peer + "' (expected: ");
        assertThat(TrustedPeers.namesCertificate(peer)).isTrue();
    }

    private static SocketAddress from(String address) {
        return new InetSocketAddress(address, 40_000);
    }

    @ParameterizedTest(name = "{0} trusts {1}: {2}")
    @CsvSource({
            "10.1.0.0/16,    10.1.255.255, true",
            "10.1.0.0/16,    10.2.0.0,     false",
            "10.1.16.0/20,   10.1.31.200,  true",
            "10.1.16.0/20,   10.1.32.1,    false",
            "10.1.16.0/20,   10.1.15.255,  false",
            "10.1.2.3,       10.1.2.3,     true",
            "10.1.2.3,       10.1.2.4,     false",
            "10.1.2.3/32,    10.1.2.3,     true",
            "0.0.0.0/0,      192.0.2.7,    true",
            "192.0.2.128/25, 192.0.2.129,  true",
            "192.0.2.128/25, 192.0.2.127,  false",
            "::1,            ::1,          true",
            "::1/128,        ::2,          false",
            "fd00::/8,       fdff::1,      true",
            "fd00::/7,       fc00::1,      true",
            "fd00::/8,       fc00::1,      false",
            "0.0.0.0/0,      ::1,          false",
            "::/0,           127.0.0.1,    false",
    })
    void aRange_trustsExactlyTheAddressesItsPrefixCovers(String range, String address, boolean trusted) {
        assertThat(TrustedPeers.of(List.of(range)).trusts(from(address))).isEqualTo(trusted);
    }

    @Test
    void anAddressInAnyOfSeveralRanges_isTrusted() {
        TrustedPeers peers = TrustedPeers.of(List.of("10.1.0.0/16", "10.2.3.4", "::1"));

        assertThat(peers.trusts(from("10.2.3.4"))).isTrue();
        assertThat(peers.trusts(from("::1"))).isTrue();
        assertThat(peers.trusts(from("10.3.0.1"))).isFalse();
    }

    @Test
    void noRanges_orAnAddressThatIsNotAnInternetOne_trustNobody() {
        assertThat(TrustedPeers.of(List.of()).trusts(from("127.0.0.1"))).isFalse();
        assertThat(TrustedPeers.none().trusts(from("127.0.0.1"))).isFalse();
        assertThat(TrustedPeers.of(List.of("0.0.0.0/0")).trusts(InetSocketAddress.createUnresolved("gw", 1)))
                .isFalse();
        assertThat(TrustedPeers.of(List.of("0.0.0.0/0")).trusts(new io.netty.channel.local.LocalAddress("x")))
                .isFalse();
    }

    @ParameterizedTest(name = "''{0}'' is refused")
    @ValueSource(strings = {"gateway.eu.internal", "10.1.0.0/33", "::1/129", "10.1.0.0/", "10.1.0.0/x", "10.1.0.0/1234",
                            "300.1.2.3", ""})
    void aRangeThatIsNotAnAddressOrCidr_isRefused_namingIt(String range) {
        String expected = "'" + range + "' (expected: an IP address or CIDR such as 10.1.0.0/16 or ::1/128, or a "
                          + "certificate's name: dns:NAME, uri:URI or cn:NAME)";

        assertThatIllegalArgumentException().isThrownBy(() -> TrustedPeers.of(List.of(range))).withMessage(expected);
        assertThat(TrustedPeers.problem(range)).isEqualTo(expected);
    }

    @Test
    void aGoodRange_hasNoProblem() {
        assertThat(TrustedPeers.problem("10.1.0.0/16")).isNull();
        assertThat(TrustedPeers.problem("::1")).isNull();
    }
}
