package dev.skail;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One attempt of a step (or of the function itself), as recorded.
 *
 * @param number the attempt's number within its function attempt, starting at 1
 * @param functionAttempt the function's delivery attempt it belongs to
 * @param startedAt when it started
 * @param endedAt when it ended
 * @param outcome {@code SUCCEEDED} or {@code FAILED}
 * @param error the exception, when it failed
 * @param decision what the runtime decided: {@code RECORDED}, {@code RETRY}, {@code GIVE_UP} or
 * {@code NOT_RETRYABLE}
 * @param backoff the wait before the redelivery, when the decision is {@code RETRY}
 */
public record SkailAttempt(int number, int functionAttempt, Instant startedAt, Instant endedAt, String outcome,
        @Nullable SkailError error, String decision, @Nullable Duration backoff) {

    /** Outcome of an attempt that returned. */
    public static final String SUCCEEDED = "SUCCEEDED";

    /** Outcome of an attempt that threw. */
    public static final String FAILED = "FAILED";

    /** Decision: the outcome was recorded in the history. */
    public static final String RECORDED = "RECORDED";

    /** Decision: the execution is redelivered after the backoff. */
    public static final String RETRY = "RETRY";

    /** Decision: the attempts are spent; the exception is recorded and thrown. */
    public static final String GIVE_UP = "GIVE_UP";

    /** Decision: the exception is one of the command's {@code noRetryFor}: recorded and thrown at once. */
    public static final String NOT_RETRYABLE = "NOT_RETRYABLE";
}
