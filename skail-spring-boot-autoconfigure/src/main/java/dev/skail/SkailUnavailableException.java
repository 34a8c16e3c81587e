package dev.skail;

import java.time.Duration;

/**
 * The store of executions cannot be reached right now (the database is down or unreachable, or its disk is full), so
 * the request could not be confirmed: try it again after {@link #retryAfter()}. Usually nothing of it was recorded;
 * when the store failed after it had taken the write (a sync to disk that failed, an acknowledgement lost on the
 * network), it may have been, and the caller is not told. Repeating it is safe either way: a trigger with the same id
 * is the same execution (S13), a fire with the same idempotency key
 * ({@link SkailClient#fire(String, String, Object, String)}) the same event. Thrown by
 * {@link SkailClient#trigger}, {@link SkailClient#fire} and {@link SkailClient#resume} (and the queries) once
 * {@code skail.store.request-timeout} has passed. The HTTP API answers it with {@code 503 Service Unavailable}, an
 * {@code application/problem+json} body that names the reason and a {@code Retry-After} header; thrown from an
 * application's own controller, it answers {@code 503} with {@code Retry-After} too. Executions already accepted are
 * not affected: they go on when the store is back, with no attempt counted for the outage.
 */
public class SkailUnavailableException extends SkailException {

    private static final long serialVersionUID = 1L;

    private final Duration retryAfter;

    /**
     * @param message what could not be done, and why
     * @param retryAfter when trying again makes sense
     * @param cause the store's failure
     */
    public SkailUnavailableException(String message, Duration retryAfter, Throwable cause) {
        super(message, cause);
        this.retryAfter = retryAfter;
    }

    /** How long the caller should wait before trying again (the {@code Retry-After} of the HTTP answer). */
    public Duration retryAfter() {
        return this.retryAfter;
    }

    /** {@link #retryAfter()} in whole seconds, at least 1: the value of a {@code Retry-After} header. */
    public long retryAfterSeconds() {
        return Math.max(1, (this.retryAfter.toMillis() + 999) / 1000);
    }
}
