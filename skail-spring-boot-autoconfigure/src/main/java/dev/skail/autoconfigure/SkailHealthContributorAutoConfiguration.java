package dev.skail.autoconfigure;

import dev.skail.actuate.SkailHealthGroups;
import dev.skail.actuate.SkailHealthIndicator;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Auto-configuration of the {@code skail} health contributor. */
@AutoConfiguration(after = SkailAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(SkailRuntime.class)
@ConditionalOnEnabledHealthIndicator("skail")
public final class SkailHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "skailHealthIndicator")
    SkailHealthIndicator skailHealthIndicator(SkailRuntime runtime, ObjectProvider<SkailWorker> worker) {
        return new SkailHealthIndicator(runtime, worker.getIfAvailable());
    }

    /**
     * The health group {@code skail-runtime} ({@code GET /actuator/health/skail-runtime}), visible with Boot's
     * default settings, unlike the components of {@code /actuator/health}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {
            "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor",
            "org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper" })
    @ConditionalOnBooleanProperty(name = "skail.health.group.enabled", matchIfMissing = true)
    static class HealthGroupConfiguration {

        @Bean
        static HealthEndpointGroupsPostProcessor skailHealthEndpointGroupsPostProcessor() {
            return SkailHealthGroups::withSkailGroup;
        }
    }
}
