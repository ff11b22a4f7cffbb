/**
 * Rate limits as decisions over an injected ticker: {@link io.unitas.core.ratelimit.TokenBucket}.
 */
package io.unitas.core.ratelimit;
