package dev.skail.runtime;

import dev.skail.SkailError;

/**
 * Stands for a recorded exception whose class cannot be rebuilt (it is gone, or has no constructor taking a
 * message). Its message names the original class and message.
 */
public class SkailRecordedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final SkailError error;

    public SkailRecordedException(SkailError error) {
        super(error.type() + ": " + error.message());
        this.error = error;
    }

    public SkailError error() {
        return this.error;
    }
}
