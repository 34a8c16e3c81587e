package dev.skail;

/** Something named in a request (workload, version, function, execution) is unknown. */
public class SkailNotFoundException extends SkailException {

    private static final long serialVersionUID = 1L;

    public SkailNotFoundException(String message) {
        super(message);
    }

    public SkailNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
