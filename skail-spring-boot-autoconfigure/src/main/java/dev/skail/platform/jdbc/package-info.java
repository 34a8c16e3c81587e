@NullMarked
package dev.skail.platform.jdbc;

import org.jspecify.annotations.NullMarked;
