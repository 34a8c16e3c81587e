@NullMarked
package dev.skail.actuate;

import org.jspecify.annotations.NullMarked;
