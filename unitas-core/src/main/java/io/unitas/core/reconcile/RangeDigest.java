package io.unitas.core.reconcile;

/**
 * What one key range of a copy holds, in two numbers: how many rows, and the sum (wrapping, modulo 2^64) of a 64-bit
 * hash of each row's key and stored state. A sum rather than a chained hash, so the order rows are read in does not
 * matter and a database can compute it in one aggregate; two copies with equal digests hold the same rows unless a
 * 64-bit sum collides.
 *
 * @param rows how many rows the range holds, {@code >= 0}
 * @param hash the wrapping sum of the rows' hashes; 0 for an empty range
 */
public record RangeDigest(long rows, long hash) {

    /** The digest of a range without rows. */
    public static final RangeDigest EMPTY = new RangeDigest(0, 0);

    /** Refuses a negative row count, and a hash for no rows. */
    public RangeDigest {
        if (rows < 0) {
            throw new IllegalArgumentException("rows: " + rows + " (expected: >= 0)");
        }
        if (rows == 0 && hash != 0) {
            throw new IllegalArgumentException("hash: " + hash + " of an empty range (expected: 0)");
        }
    }

    /** This range with one more row, whose hash is {@code rowHash}. */
    public RangeDigest plus(long rowHash) {
        return new RangeDigest(Math.addExact(rows, 1), hash + rowHash);
    }
}
