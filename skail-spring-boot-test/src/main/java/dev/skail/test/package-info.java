/**
 * Test support, in the artifact {@code skail-spring-boot-test} (test scope): {@link dev.skail.test.SkailTest} for
 * Spring Boot tests with virtual time ({@link dev.skail.test.VirtualClock}) and a fresh in-memory store,
 * {@link dev.skail.test.SkailAwait} to wait for an execution to reach a status, and
 * {@link dev.skail.test.SkailReplayer} to replay an exported history in a plain unit test.
 */
@NullMarked
package dev.skail.test;

import org.jspecify.annotations.NullMarked;
