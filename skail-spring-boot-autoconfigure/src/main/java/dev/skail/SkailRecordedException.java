package dev.skail;

/**
 * Stands for a recorded exception that skail does not rebuild as its own class: the class is gone, is outside the
 * allow-list of classes skail rebuilds (see {@code skail.replay.exception-packages}), or held a value that could not
 * be serialized. Its message names the original class and message; {@link #error()} has the whole record. The
 * function gets it on its first run as on every replay, so a {@code catch} behaves the same each time.
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
