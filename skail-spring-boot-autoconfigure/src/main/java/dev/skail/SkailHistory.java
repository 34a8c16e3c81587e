package dev.skail;

import java.util.List;

/**
 * An execution with every recorded step and attempt: the file a developer downloads to replay an execution.
 *
 * @param execution the execution
 * @param steps the recorded steps, by position
 * @param functionAttempts the function's failed delivery attempts (each one an exception that left the function)
 */
public record SkailHistory(SkailExecution execution, List<SkailStep> steps, List<SkailAttempt> functionAttempts) {
}
