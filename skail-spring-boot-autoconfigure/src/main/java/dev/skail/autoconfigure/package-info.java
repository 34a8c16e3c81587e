@NullMarked
package dev.skail.autoconfigure;

import org.jspecify.annotations.NullMarked;
