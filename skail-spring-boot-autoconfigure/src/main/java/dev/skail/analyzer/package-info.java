/**
 * The start-up determinism analyzer: reads the bytecode of functions for sources of non-determinism.
 */
@NullMarked
package dev.skail.analyzer;

import org.jspecify.annotations.NullMarked;
