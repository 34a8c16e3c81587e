/**
 * Logging integration: log lines of function code are not written again while a function is being replayed.
 */
@NullMarked
package dev.skail.logging;

import org.jspecify.annotations.NullMarked;
