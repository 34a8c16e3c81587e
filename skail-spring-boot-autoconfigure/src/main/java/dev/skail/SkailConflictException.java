package dev.skail;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * A request conflicts with what exists, e.g. a trigger that repeats an id with other arguments. Thrown from an application's own controller (e.g. by
 * {@link SkailClient}), it answers with its HTTP status.
 */
@ResponseStatus(HttpStatus.CONFLICT)
public class SkailConflictException extends SkailException {

    private static final long serialVersionUID = 1L;

    public SkailConflictException(String message) {
        super(message);
    }

    public SkailConflictException(String message, Throwable cause) {
        super(message, cause);
    }
}
