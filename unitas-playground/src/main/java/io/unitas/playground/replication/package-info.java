/**
 * The demo shop's replication between its regional stores: each store's change log shipped to every other
 * region, asynchronously, with an injectable delay, pause and resume per link, and measured lag.
 */
package io.unitas.playground.replication;
