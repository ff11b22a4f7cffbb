package io.unitas.playground;

/** How a shop instance treats data that may live in another region. */
public enum ShopMode {
    /** Data readiness with reads from the home region, idempotency records kept with the user's home unit. */
    UNITAS,
    /**
     * What the seed's team had: every region believes it is the home, so reads are local only ("account does not
     * exist" while replication lags) and idempotency records are region-local (a retry elsewhere runs again).
     */
    NAIVE
}
