package dev.skail.sample;

import java.nio.file.Path;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Knobs of the sample's fake services.
 *
 * @param gatewayFailures how many calls per order the fake payment gateway fails before it answers
 * @param latency how long each fake service call takes
 * @param journal file where every real effect is appended as a line, if set (the crash test reads it)
 * @param prazoConfirmacao how long an order waits, reserved, before it is charged
 */
@ConfigurationProperties("sample")
public record SampleProperties(int gatewayFailures, Duration latency, Path journal, Duration prazoConfirmacao) {
}
