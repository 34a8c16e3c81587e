package dev.skail.autoconfigure;

import dev.skail.actuate.MicrometerSkailInstrumentation;
import dev.skail.actuate.SkailEndpoint;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Auto-configuration of the {@code skail} actuator endpoint, and of skail's metrics and observations. */
@AutoConfiguration(after = SkailAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnBean(SkailRuntime.class)
public final class SkailActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    @ConditionalOnAvailableEndpoint(SkailEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        SkailEndpoint skailEndpoint(SkailRuntime runtime, ObjectProvider<SkailWorker> worker) {
            return new SkailEndpoint(runtime, worker.getIfAvailable());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ MeterRegistry.class, ObservationRegistry.class })
    @ConditionalOnBean(MeterRegistry.class)
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        MicrometerSkailInstrumentation skailInstrumentation(MeterRegistry meters,
                ObjectProvider<ObservationRegistry> observations, SkailRuntime runtime) {
            MicrometerSkailInstrumentation instrumentation = new MicrometerSkailInstrumentation(meters,
                    observations.getIfAvailable(() -> MicrometerSkailInstrumentation.meterBacked(meters)), runtime);
            runtime.setInstrumentation(instrumentation);
            return instrumentation;
        }
    }
}
