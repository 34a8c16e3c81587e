package dev.skail.platform;

/**
 * The right to run one execution, held by one runner. Every write a runner makes to the execution's history
 * presents its lease; a runner whose lease was taken over (it expired) cannot record anything.
 *
 * @param taskId the execution
 * @param owner the runtime instance that holds it
 * @param token unique to this claim
 */
public record Lease(String taskId, String owner, String token) {
}
