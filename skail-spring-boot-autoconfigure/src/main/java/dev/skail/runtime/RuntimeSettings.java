package dev.skail.runtime;

import java.time.Duration;

/**
 * What a runtime needs to know about itself.
 *
 * @param workload the workload's name
 * @param version the workload version it serves
 * @param instanceId this runtime instance, the owner named on its leases
 * @param leaseDuration how long a claim on an execution lasts without renewal
 * @param backoff the backoff of redeliveries after failures
 */
public record RuntimeSettings(String workload, String version, String instanceId, Duration leaseDuration,
        Backoff backoff) {
}
