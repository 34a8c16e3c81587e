/**
 * Scenario F's application: a minimal non-web Spring Boot application, launched with and without
 * skail-spring-boot-starter on its class path. Nothing here may use a skail type but the annotations, which the JVM
 * ignores when the starter is absent.
 */
@NullMarked
package dev.skail.benchmarks.startup;

import org.jspecify.annotations.NullMarked;
