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
 * @param asyncThreads the most threads that run steps started with {@code Skail.async}, all executions together
 */
public record RuntimeSettings(String workload, String version, String instanceId, Duration leaseDuration,
        Backoff backoff, int asyncThreads) {

    /** The default bound of async threads. */
    public static final int DEFAULT_ASYNC_THREADS = 32;

    public RuntimeSettings {
        if (asyncThreads < 1) {
            throw new IllegalArgumentException("asyncThreads must be at least 1, not " + asyncThreads);
        }
    }

    public RuntimeSettings(String workload, String version, String instanceId, Duration leaseDuration,
            Backoff backoff) {
        this(workload, version, instanceId, leaseDuration, backoff, DEFAULT_ASYNC_THREADS);
    }
}
