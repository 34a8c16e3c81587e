package dev.skail.autoconfigure;

import dev.skail.http.IdempotencyKeyExchangeFilter;
import dev.skail.http.IdempotencyKeyInterceptor;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Carries the running command step's idempotency key to outgoing HTTP calls made with the application's
 * auto-configured {@code RestClient.Builder}, {@code RestTemplateBuilder} and {@code WebClient.Builder}.
 */
@AutoConfiguration
@ConditionalOnClass(name = "org.springframework.http.client.ClientHttpRequestInterceptor")
@ConditionalOnBooleanProperty(name = "skail.http-client.idempotency-key.enabled", matchIfMissing = true)
public final class SkailHttpClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyKeyInterceptor skailIdempotencyKeyInterceptor(SkailProperties properties) {
        return new IdempotencyKeyInterceptor(properties.getHttpClient().getIdempotencyKey().getHeader());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    static class RestClientConfiguration {

        @Bean
        RestClientCustomizer skailIdempotencyKeyRestClientCustomizer(IdempotencyKeyInterceptor interceptor) {
            return (builder) -> builder.requestInterceptor(interceptor);
        }

        @Bean
        RestTemplateCustomizer skailIdempotencyKeyRestTemplateCustomizer(IdempotencyKeyInterceptor interceptor) {
            return (restTemplate) -> restTemplate.getInterceptors().add(interceptor);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ WebClientCustomizer.class, reactor.core.publisher.Mono.class })
    static class WebClientConfiguration {

        @Bean
        WebClientCustomizer skailIdempotencyKeyWebClientCustomizer(SkailProperties properties) {
            IdempotencyKeyExchangeFilter filter = new IdempotencyKeyExchangeFilter(
                    properties.getHttpClient().getIdempotencyKey().getHeader());
            return (builder) -> builder.filter(filter);
        }
    }
}
