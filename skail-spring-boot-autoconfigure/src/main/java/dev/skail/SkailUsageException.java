package dev.skail;

/**
 * A skail API used where its rules forbid it, for example a {@link SkailCommand} that calls another command
 * or a function. It fails the execution at once: retrying would only repeat the mistake.
 */
public class SkailUsageException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public SkailUsageException(String message) {
        super(message);
    }
}
