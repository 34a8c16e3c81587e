/**
 * The benchmark harness: {@code ./bin/benchmark} runs scenarios A to G on the embedded H2 store and on PostgreSQL,
 * each in fresh JVMs, and prints one table per store with the targets (see {@code docs/performance.md}).
 * Not part of the test run.
 */
@NullMarked
package dev.skail.benchmarks;

import org.jspecify.annotations.NullMarked;
