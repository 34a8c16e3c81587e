package dev.skail.autoconfigure;

import dev.skail.logging.ReplayedLogSuppression;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** With Logback: log lines of function code are not written again while the function is replayed. */
@AutoConfiguration
@ConditionalOnClass(name = "ch.qos.logback.classic.LoggerContext")
@ConditionalOnBooleanProperty(name = "skail.logging.suppress-replayed-logs", matchIfMissing = true)
public final class SkailLoggingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    static ReplayedLogSuppression skailReplayedLogSuppression() {
        return new ReplayedLogSuppression();
    }
}
