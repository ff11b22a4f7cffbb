/**
 * Deep health as pure values and functions: one probe's result, the anti-flap state of a check, calculated
 * checks, the roll-up of checks into a region's health with its score, the report a health agent publishes,
 * and the dynamic DNS TTL derived from the score. Time is always handed in; nothing here reads a clock.
 */
package io.unitas.core.health;
