package dev.skail.platform;

import org.jspecify.annotations.Nullable;

/**
 * One recorded attempt of a step, or of the function itself ({@link #FUNCTION_POSITION}).
 *
 * @param taskId the execution
 * @param position the step's position, or {@link #FUNCTION_POSITION}
 * @param name the command's name, or the function's
 * @param functionAttempt the function attempt it belongs to
 * @param number its number within that function attempt, from 1
 * @param startedAt when it started
 * @param endedAt when it ended
 * @param outcome {@code SUCCEEDED} or {@code FAILED}
 * @param error JSON of the exception
 * @param decision {@code RECORDED}, {@code RETRY} or {@code GIVE_UP}
 * @param backoffMillis the wait before the redelivery, for {@code RETRY}
 */
public record AttemptRow(String taskId, int position, String name, int functionAttempt, int number, long startedAt, long endedAt,
        String outcome, @Nullable String error, String decision, @Nullable Long backoffMillis) {

    /** Position of the attempts of the function itself. */
    public static final int FUNCTION_POSITION = -1;
}
