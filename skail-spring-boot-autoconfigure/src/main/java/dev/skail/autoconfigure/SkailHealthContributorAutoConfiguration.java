package dev.skail.autoconfigure;

import dev.skail.actuate.SkailHealthIndicator;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

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
}
