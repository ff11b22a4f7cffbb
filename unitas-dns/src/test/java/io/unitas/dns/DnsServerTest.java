package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DefaultDnsOptEcsRecord;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.ResolvedAddressTypes;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.unitas.testkit.Await;

/** {@code unitas dns} against real clients: hand-built packets over UDP and TCP, and Netty's resolver with ECS. */
class DnsServerTest {

    private static final int A = 1;
    private static final int NS = 2;
    private static final int SOA = 6;
    private static final int AAAA = 28;
    private static final int SRV = 33;
    private static final int OPT = 41;

    /** 40 IPv6 addresses: more than 512 bytes of answer. */
    private static final String MANY = IntStream.rangeClosed(1, 40).mapToObj(i -> "\"2001:db8::" + i + "\"")
                                                .collect(Collectors.joining(", "));

    @TempDir
    Path dir;
    private DnsServer server;
    private RawDns raw;

    @BeforeEach
    void start() {
        String yaml = ZoneFiles.DNS_YAML.replace("records:\n", "records:\n  many: {cn: [" + MANY + "], eu: ["
                                                               + MANY + "], us: [" + MANY + "]}\n");
        server = DnsServer.start(DnsConfig.read(ZoneFiles.write(dir, yaml)));
        raw = new RawDns(server.port());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String addresses(RawDns.Answer a) {
        return a.answers().stream().map(RawDns.Rr::address).sorted().collect(Collectors.joining(" "));
    }

    @Test
    void aClientIsAnsweredFromItsRegion_bySourceAddress_withTheFullTtl() {
        RawDns.Answer a = raw.udp(RawDns.query(7, "www.shop.example.", A, 0, null, 0));
        assertThat(a.id()).isEqualTo(7);
        assertThat(a.rcode()).isZero();
        assertThat(a.authoritative()).isTrue();
        assertThat(addresses(a)).isEqualTo("10.0.3.1"); // 127.0.0.1 is in 0.0.0.0/0: us
        assertThat(a.answers()).allSatisfy(r -> assertThat(r.ttl()).isEqualTo(300));
        assertThat(a.additional()).isEmpty(); // no EDNS asked, none given
    }

    @Test
    void theClientSubnetLocatesTheClient_andIsEchoedWithTheScopeUsed() {
        RawDns.Answer a = raw.udp(RawDns.query(8, "www.shop.example.", A, 1232, "10.1.2.0", 24));
        assertThat(addresses(a)).isEqualTo("10.0.1.1 10.0.1.2");
        RawDns.Rr opt = a.additional().get(0);
        assertThat(opt.type()).isEqualTo(OPT);
        assertThat(opt.ecs()).isEqualTo("1/24/16"); // IPv4, the client's /24, an answer for all of 10.1.0.0/16
        RawDns.Answer eu = raw.udp(RawDns.query(9, "www.shop.example.", AAAA, 1232, "10.2.0.0", 16));
        assertThat(eu.rcode()).isZero();
        assertThat(eu.answers()).isEmpty(); // eu has no IPv6 address: NODATA
        assertThat(eu.authority()).extracting(RawDns.Rr::type).containsExactly(SOA);
    }

    @Test
    void aHealthChangeInTheStaticFile_changesTheAnswer_andAFailoverGetsTheMinimumTtl() {
        byte[] cnClient = RawDns.query(10, "www.shop.example.", A, 1232, "10.1.0.0", 16);
        assertThat(addresses(raw.udp(cnClient))).isEqualTo("10.0.1.1 10.0.1.2");
        ZoneFiles.health(dir, "{cn: false, eu: true, us: true}");
        Await.until("cn's clients answered from eu", Duration.ofSeconds(5),
                    () -> addresses(raw.udp(cnClient)).equals("10.0.2.1"));
        assertThat(raw.udp(cnClient).answers()).allSatisfy(r -> assertThat(r.ttl()).isEqualTo(30));
    }

    @Test
    void aBadHealthFileNeverChangesTheAnswers_andALaterGoodOneIsTaken() {
        byte[] cnClient = RawDns.query(15, "www.shop.example.", A, 1232, "10.1.0.0", 16);
        byte[] usClient = RawDns.query(16, "www.shop.example.", A, 0, null, 0);
        ZoneFiles.health(dir, "{cn: false, eu: true, us: true, mars: true}"); // mars: not in the topology
        ZoneFiles.health(dir, "{cn: true, eu: true, us: false}");
        Await.until("the good change taken: us falls to cn", Duration.ofSeconds(5),
                    () -> addresses(raw.udp(usClient)).equals("10.0.1.1 10.0.1.2"));
        assertThat(addresses(raw.udp(cnClient))).isEqualTo("10.0.1.1 10.0.1.2"); // never moved by the bad file
    }

    @Test
    void aLowerScoreShortensTheTtl() {
        ZoneFiles.health(dir, "{cn: true, eu: true, us: {healthy: true, writable: true, score: 0.6}}");
        Await.until("us's TTL follows its score", Duration.ofSeconds(5), () -> raw.udp(
                RawDns.query(11, "www.shop.example.", A, 0, null, 0)).answers().get(0).ttl() == 216);
    }

    @Test
    void noHealthyRegion_isAnsweredWithTheLastHealthyOne_neverServfail_andCounted() {
        byte[] cnClient = RawDns.query(12, "www.shop.example.", A, 1232, "10.1.0.0", 16);
        ZoneFiles.health(dir, "{cn: false, eu: true, us: true}");
        Await.until("cn's clients answered from eu", Duration.ofSeconds(5),
                    () -> addresses(raw.udp(cnClient)).equals("10.0.2.1"));
        ZoneFiles.health(dir, "{cn: false, eu: false, us: false}");
        Await.until("the no-healthy answer counted", Duration.ofSeconds(5), () -> {
            RawDns.Answer a = raw.udp(cnClient);
            assertThat(a.rcode()).isZero();
            assertThat(addresses(a)).isEqualTo("10.0.2.1");
            assertThat(a.answers()).allSatisfy(r -> assertThat(r.ttl()).isEqualTo(30));
            return metrics().contains("unitas_dns_no_healthy_region_answers_total{client_region=\"cn\"}");
        });
    }

    @Test
    void srvListsTheChosenRegionAtPriorityTen_thenItsFallbackOrder() {
        RawDns.Answer a = raw.udp(RawDns.query(13, "_api._tcp.shop.example.", SRV, 1232, "10.1.0.0", 16));
        assertThat(a.answers()).extracting(RawDns.Rr::srv).containsExactly(
                "10 60 8443 gw1.cn.shop.example.", "10 40 8443 gw2.cn.shop.example.",
                "20 100 8443 gw1.eu.shop.example.", "30 100 8443 gw1.us.shop.example.");
        ZoneFiles.health(dir, "{cn: false, eu: true, us: true}");
        Await.until("cn's clients are sent to eu first", Duration.ofSeconds(5), () -> raw.udp(
                RawDns.query(14, "_api._tcp.shop.example.", SRV, 1232, "10.1.0.0", 16)).answers().get(0).srv()
                .equals("10 100 8443 gw1.eu.shop.example."));
    }

    @Test
    void theApexHasSoaAndNs_unknownNamesAreNxdomain_otherZonesAreRefused() {
        RawDns.Answer soa = raw.udp(RawDns.query(20, "shop.example.", SOA, 0, null, 0));
        assertThat(soa.answers()).extracting(RawDns.Rr::type).containsExactly(SOA);
        RawDns.Answer ns = raw.udp(RawDns.query(21, "SHOP.example.", NS, 0, null, 0)); // names are case-blind
        assertThat(ns.answers()).extracting(RawDns.Rr::type).containsExactly(NS);
        RawDns.Answer nx = raw.udp(RawDns.query(22, "nope.shop.example.", A, 0, null, 0));
        assertThat(nx.rcode()).isEqualTo(3);
        assertThat(nx.authoritative()).isTrue();
        assertThat(nx.authority()).extracting(RawDns.Rr::type).containsExactly(SOA);
        assertThat(nx.authority().get(0).ttl()).isEqualTo(30);
        RawDns.Answer ent = raw.udp(RawDns.query(23, "cn.shop.example.", A, 0, null, 0)); // above gw1.cn
        assertThat(ent.rcode()).isZero();
        assertThat(ent.answers()).isEmpty();
        RawDns.Answer mx = raw.udp(RawDns.query(24, "www.shop.example.", 15, 0, null, 0)); // MX: NODATA
        assertThat(mx.rcode()).isZero();
        assertThat(mx.answers()).isEmpty();
        RawDns.Answer refused = raw.udp(RawDns.query(25, "www.example.org.", A, 0, null, 0));
        assertThat(refused.rcode()).isEqualTo(5);
        assertThat(refused.authoritative()).isFalse();
    }

    @Test
    void ownerNamesPointAtTheQuestion_theApexAtItsZoneLabels_andALabelsOwnDotMatchesNothing() {
        RawDns.Answer a = raw.udp(RawDns.query(27, "WWW.shop.EXAMPLE.", A, 0, null, 0));
        assertThat(a.answers()).extracting(RawDns.Rr::name).containsOnly("WWW.shop.EXAMPLE."); // the question's case
        RawDns.Answer nx = raw.udp(RawDns.query(28, "a.b.nope.Shop.example.", A, 0, null, 0));
        assertThat(nx.authority()).extracting(RawDns.Rr::name).containsExactly("Shop.example.");
        // header 12, question 27, the SOA: its owner a 2-byte pointer, 10 of type to length, 63 of data
        assertThat(nx.size()).isEqualTo(12 + 27 + 2 + 10 + 63);
        // one label "www.shop" then "example": not the name www.shop.example.
        byte[] q = RawDns.query(29, "wwwxshop.example.", A, 0, null, 0);
        q[12 + 4] = '.';
        RawDns.Answer dotted = raw.udp(q);
        assertThat(dotted.rcode()).isEqualTo(5); // outside the zone: "www\.shop.example."
    }

    @Test
    void aClassOtherThanIn_anyIncluded_isRefused_notAuthoritative() {
        for (int qclass : new int[] {255, 3, 254}) { // ANY (RFC 2181 §6.1: never authoritative), CHAOS, NONE
            RawDns.Answer a = raw.udp(RawDns.query(26, "www.shop.example.", A, qclass, 0, null, 0));
            assertThat(a.rcode()).as("class %d", qclass).isEqualTo(5);
            assertThat(a.authoritative()).as("class %d", qclass).isFalse();
            assertThat(a.answers()).as("class %d", qclass).isEmpty();
        }
    }

    @Test
    void malformedPacketsAreFormerr_orDropped_andTheServerGoesOnAnswering() {
        byte[] good = RawDns.query(30, "www.shop.example.", A, 0, null, 0);
        // a question cut short
        assertThat(raw.udp(java.util.Arrays.copyOf(good, 20)).rcode()).isEqualTo(1);
        // a compression pointer to itself
        byte[] loop = {0, 31, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, (byte) 0xc0, 12, 0, 1, 0, 1};
        RawDns.Answer l = raw.udp(loop);
        assertThat(l.id()).isEqualTo(31);
        assertThat(l.rcode()).isEqualTo(1);
        // two questions
        byte[] two = good.clone();
        two[5] = 2;
        assertThat(raw.udp(two).rcode()).isEqualTo(1);
        // a client subnet whose scope is set (RFC 7871 §7.1.1) and one with bits beyond its prefix
        byte[] scoped = RawDns.query(32, "www.shop.example.", A, 1232, "10.1.0.0", 16);
        scoped[scoped.length - 3] = 8;
        assertThat(raw.udp(scoped).rcode()).isEqualTo(1);
        byte[] stray = RawDns.query(33, "www.shop.example.", A, 1232, "10.1.0.0", 12);
        stray[stray.length - 1] = 0x0f;
        assertThat(raw.udp(stray).rcode()).isEqualTo(1);
        // shorter than a header, and a response: never answered
        assertThat(raw.udp(new byte[] {1, 2, 3}, 300)).isNull();
        byte[] response = good.clone();
        response[2] |= (byte) 0x80;
        assertThat(raw.udp(response, 300)).isNull();
        // a TCP frame of garbage, then a good query on a new connection
        assertThat(raw.tcp(new byte[] {0, 34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 5, 'a'}).get(0).rcode()).isEqualTo(1);
        assertThat(raw.udp(good).rcode()).isZero();
        assertThat(raw.tcp(good).get(0).rcode()).isZero();
    }

    @Test
    void aTcpClientThatStopsMidFrame_stallsNobodyElse() throws Exception {
        try (java.net.Socket stalled = new java.net.Socket(InetAddress.getLoopbackAddress(), server.port())) {
            stalled.getOutputStream().write(new byte[] {0, 100, 0, 1, 2}); // 100 bytes announced, 3 sent
            stalled.getOutputStream().flush();
            byte[] good = RawDns.query(44, "www.shop.example.", A, 0, null, 0);
            assertThat(raw.udp(good).rcode()).isZero();
            assertThat(raw.tcp(good).get(0).id()).isEqualTo(44);
        }
    }

    @Test
    void anAnswerTooLargeForUdp_isTruncated_andWholeOverTcp() {
        RawDns.Answer udp = raw.udp(RawDns.query(40, "many.shop.example.", AAAA, 0, null, 0));
        assertThat(udp.truncated()).isTrue();
        assertThat(udp.answers()).isEmpty();
        assertThat(udp.size()).isLessThanOrEqualTo(512);
        RawDns.Answer edns = raw.udp(RawDns.query(41, "many.shop.example.", AAAA, 4096, null, 0));
        assertThat(edns.truncated()).isFalse(); // the client accepts 4096 bytes
        assertThat(edns.answers()).hasSize(40);
        List<RawDns.Answer> tcp = raw.tcp(RawDns.query(42, "many.shop.example.", AAAA, 0, null, 0),
                                          RawDns.query(43, "www.shop.example.", A, 0, null, 0));
        assertThat(tcp.get(0).truncated()).isFalse();
        assertThat(tcp.get(0).answers()).hasSize(40);
        assertThat(tcp.get(1).id()).isEqualTo(43);
    }

    @Test
    void nettysResolverResolves_withTheClientSubnet() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (DnsNameResolver resolver = new DnsNameResolverBuilder(group.next())
                .datagramChannelType(NioDatagramChannel.class)
                .nameServerProvider(new SingletonDnsServerAddressStreamProvider(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port())))
                .resolveCache(NoopDnsCache.INSTANCE)
                .resolvedAddressTypes(ResolvedAddressTypes.IPV4_ONLY)
                .optResourceEnabled(false) // the ECS record is the query's one OPT record
                .recursionDesired(false)
                .searchDomains(List.of())
                .queryTimeoutMillis(5_000)
                .build()) {
            List<DnsRecord> ecs = List.of(new DefaultDnsOptEcsRecord(1232, 24, GeoMapTest.ip("10.2.3.0")));
            List<InetAddress> eu = resolver.resolveAll("www.shop.example", ecs).get();
            assertThat(eu).extracting(InetAddress::getHostAddress).containsExactly("10.0.2.1");
            AddressedEnvelope<DnsResponse, InetSocketAddress> srv = resolver.query(
                    new DefaultDnsQuestion("_api._tcp.shop.example.", DnsRecordType.SRV), ecs).get();
            try {
                DnsResponse r = srv.content();
                assertThat(r.isAuthoritativeAnswer()).isTrue();
                assertThat(r.count(DnsSection.ANSWER)).isEqualTo(4); // eu at 10, cn (two) at 20, us at 30
                DnsRawRecord first = r.recordAt(DnsSection.ANSWER, 0);
                assertThat(first.content().getUnsignedShort(first.content().readerIndex())).isEqualTo(10);
                assertThat(first.timeToLive()).isEqualTo(300);
            } finally {
                srv.release();
            }
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void metricsCountQueriesByTypeRcodeAndRegions() {
        raw.udp(RawDns.query(50, "www.shop.example.", A, 1232, "10.1.0.0", 16));
        raw.udp(RawDns.query(51, "nope.shop.example.", A, 0, null, 0));
        String m = metrics();
        assertThat(m).contains("unitas_dns_queries_total{client_region=\"cn\",qtype=\"A\",rcode=\"NOERROR\","
                               + "region=\"cn\"} 1.0");
        assertThat(m).contains("unitas_dns_queries_total{client_region=\"none\",qtype=\"A\",rcode=\"NXDOMAIN\","
                               + "region=\"none\"} 1.0");
    }

    private String metrics() {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.metricsPort() + "/metrics"))
                               .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            return r.body();
        } catch (java.io.IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
