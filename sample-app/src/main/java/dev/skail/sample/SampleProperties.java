package dev.skail.sample;

import java.nio.file.Path;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Knobs of the sample.
 *
 * @param gatewayUrl base URL of the payment gateway; the built-in fake one ({@code /fake-gateway} on this
 * application) when not set
 * @param gatewayTimeout how long a call to the gateway may take before it counts as timed out
 * @param gatewayFailures how many calls per order the built-in fake gateway fails before it answers
 * @param latency how long each call of the fake services takes
 * @param journal file where every real effect is appended as a line, if set (the crash tests read it)
 * @param prazoConfirmacao how long an order waits, reserved, before it is charged
 */
@ConfigurationProperties("sample")
public record SampleProperties(@Nullable String gatewayUrl, Duration gatewayTimeout, int gatewayFailures,
        Duration latency, @Nullable Path journal, Duration prazoConfirmacao) {
}
