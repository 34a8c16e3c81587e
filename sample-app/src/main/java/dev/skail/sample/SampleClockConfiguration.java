package dev.skail.sample;

import java.time.Clock;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The application's own clock (the reminders read it); tests replace it with skail's virtual clock, which is primary. */
@Configuration(proxyBeanMethods = false)
class SampleClockConfiguration {

    @Bean
    @ConditionalOnMissingBean
    Clock clock() {
        return Clock.systemUTC();
    }
}
