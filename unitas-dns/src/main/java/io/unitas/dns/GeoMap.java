package io.unitas.dns;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.unitas.core.Region;

/**
 * Where a client is: the region of the most specific network that holds its address (overlaps are allowed; the
 * longest prefix wins, the first listed among equals), and how many leading bits of the address that answer
 * depends on, the scope an EDNS Client Subnet reply must carry (RFC 7871 §7.2.1).
 */
final class GeoMap {

    /**
     * The region found (or {@code null} when no network holds the address) and the scope: the prefix length of every
     * address that gets the same answer.
     */
    record Location(Region region, int scope) {
    }

    private final DnsConfig.Geo[] rules; // longest prefix first, stable

    GeoMap(List<DnsConfig.Geo> rules) {
        List<DnsConfig.Geo> sorted = new ArrayList<>(rules);
        sorted.sort(Comparator.comparingInt((DnsConfig.Geo r) -> r.cidr().prefix()).reversed());
        this.rules = sorted.toArray(DnsConfig.Geo[]::new);
    }

    /**
     * Locates {@code address} of which only the first {@code knownBits} are known (an ECS source prefix; all of
     * them for a packet's source address): only networks no longer than that can be matched.
     */
    Location locate(byte[] address, int knownBits) {
        byte[] known = Bits.truncate(address, knownBits);
        DnsConfig.Geo match = null;
        for (DnsConfig.Geo r : rules) {
            if (r.cidr().prefix() <= knownBits && r.cidr().contains(known)) {
                match = r;
                break;
            }
        }
        int matched = match == null ? 0 : match.cidr().prefix();
        // Every more specific network that does not hold the client splits the matched one: the answer holds only
        // for the block around the client that none of them reaches into.
        int scope = matched;
        for (DnsConfig.Geo r : rules) {
            Cidr c = r.cidr();
            if (c.network().length == known.length && c.prefix() > matched
                && (match == null || match.cidr().contains(c.network())) && !sameAnswer(r, match)) {
                int shared = Bits.common(known, c.network());
                if (shared < c.prefix()) {
                    scope = Math.max(scope, shared + 1);
                } else {
                    scope = Math.max(scope, c.prefix()); // beyond what is known: as precise as that network
                }
            }
        }
        return new Location(match == null ? null : match.region(), Math.min(scope, known.length * 8));
    }

    private static boolean sameAnswer(DnsConfig.Geo r, DnsConfig.Geo match) {
        return match != null && r.region().equals(match.region());
    }
}
