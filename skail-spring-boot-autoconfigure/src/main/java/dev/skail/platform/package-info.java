@NullMarked
package dev.skail.platform;

import org.jspecify.annotations.NullMarked;
