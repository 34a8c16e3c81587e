package dev.skail;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * Something named in a request (workload, version, function, execution) is unknown. Thrown from an application's own controller (e.g. by
 * {@link SkailClient}), it answers with its HTTP status.
 */
@ResponseStatus(HttpStatus.NOT_FOUND)
public class SkailNotFoundException extends SkailException {

    private static final long serialVersionUID = 1L;

    public SkailNotFoundException(String message) {
        super(message);
    }

    public SkailNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
