package io.unitas.cache;

/** The cache's local disk (L2) could not be opened, read or written; the message names the cache and the directory. */
public final class CacheStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception whose message says what failed and where. */
    public CacheStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
