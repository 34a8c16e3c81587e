@NullMarked
package dev.skail.web;

import org.jspecify.annotations.NullMarked;
