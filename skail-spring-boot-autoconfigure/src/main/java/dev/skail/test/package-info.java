/**
 * Test support: virtual time for Spring Boot tests and a helper that waits for an execution to reach a status.
 */
@NullMarked
package dev.skail.test;

import org.jspecify.annotations.NullMarked;
