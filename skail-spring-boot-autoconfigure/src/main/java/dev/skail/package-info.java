@NullMarked
package dev.skail;

import org.jspecify.annotations.NullMarked;
