package io.unitas.resolver;

/** Where a resolution's endpoints came from. */
public enum Source {
    /** A DNS answer within its TTL. */
    DNS,
    /** A DNS answer past its TTL, served while a new query is under way (RFC 8767's serve-stale). */
    STALE,
    /** The local fallback pool: DNS was too slow or failed too many times in a row. */
    POOL
}
