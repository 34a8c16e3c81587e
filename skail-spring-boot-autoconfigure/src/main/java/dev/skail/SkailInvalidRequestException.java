package dev.skail;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ResponseStatus;

/**
 * A request is malformed: bad JSON, wrong arity or types, an invalid id. Thrown from an application's own controller (e.g. by
 * {@link SkailClient}), it answers with its HTTP status.
 */
@ResponseStatus(HttpStatus.BAD_REQUEST)
public class SkailInvalidRequestException extends SkailException {

    private static final long serialVersionUID = 1L;

    public SkailInvalidRequestException(String message) {
        super(message);
    }

    public SkailInvalidRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
