/**
 * A wallet service as a team would write it on the unitas starter: a {@code wallet(user_id, balance, version)} table
 * in its region's PostgreSQL database, deposits idempotent per user, reads that wait for a user's home region.
 */
package io.unitas.example.wallet;
