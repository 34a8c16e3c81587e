/**
 * Carries the idempotency key of the running command step to outgoing HTTP calls.
 */
@NullMarked
package dev.skail.http;

import org.jspecify.annotations.NullMarked;
