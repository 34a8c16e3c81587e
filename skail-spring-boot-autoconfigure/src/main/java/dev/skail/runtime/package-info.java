@NullMarked
package dev.skail.runtime;

import org.jspecify.annotations.NullMarked;
