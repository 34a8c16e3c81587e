package dev.skail.autoconfigure;

import dev.skail.SkailClient;
import dev.skail.web.SkailUnavailableExceptionResolver;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Maps a {@link dev.skail.SkailUnavailableException} that leaves an application's controller to {@code 503} with
 * {@code Retry-After}, whether or not the skail HTTP API is enabled.
 */
@AutoConfiguration(after = SkailAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(SkailClient.class)
public final class SkailWebErrorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SkailUnavailableExceptionResolver skailUnavailableExceptionResolver() {
        return new SkailUnavailableExceptionResolver();
    }
}
