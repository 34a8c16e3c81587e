package dev.skail.runtime;

import dev.skail.SkailAttempt;
import org.jspecify.annotations.Nullable;

/**
 * What a failure leads to, in one place: a command's failed attempt is retried by redelivery with its backoff until
 * its {@code retryCount} is spent (S3, S18), at once thrown into the function when {@code retryCount = 0} (S4) or when
 * it is one of the command's {@code noRetryFor} types (S19); a function's failure is redelivered with the global
 * backoff until its own {@code retryCount} is spent, then the execution fails (S5).
 */
final class FailurePolicy {

    private final Backoff backoff;

    FailurePolicy(Backoff backoff) {
        this.backoff = backoff;
    }

    /** The decision after the {@code attempt}-th failed attempt (from 1) of a command. */
    Decision command(StepMethod command, int attempt, Throwable failure) {
        if (command.isDefinitive(failure)) {
            return new Decision(SkailAttempt.NOT_RETRYABLE, null);
        }
        if (attempt <= command.retryCount()) {
            return new Decision(SkailAttempt.RETRY, command.backoff().applyTo(this.backoff).millis(attempt));
        }
        return new Decision(SkailAttempt.GIVE_UP, null);
    }

    /** The decision after a function failed, {@code retriesUsed} redeliveries having been made already. */
    Decision function(StepMethod function, int retriesUsed) {
        int retry = retriesUsed + 1;
        if (retry <= function.retryCount()) {
            return new Decision(SkailAttempt.RETRY, this.backoff.millis(retry));
        }
        return new Decision(SkailAttempt.GIVE_UP, null);
    }

    /**
     * A decision.
     *
     * @param decision {@link SkailAttempt#RETRY}, {@link SkailAttempt#GIVE_UP} or {@link SkailAttempt#NOT_RETRYABLE}
     * @param backoffMillis the wait before the redelivery, when retrying
     */
    record Decision(String decision, @Nullable Long backoffMillis) {

        boolean retry() {
            return SkailAttempt.RETRY.equals(this.decision);
        }
    }
}
