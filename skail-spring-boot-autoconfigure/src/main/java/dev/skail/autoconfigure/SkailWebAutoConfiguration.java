package dev.skail.autoconfigure;

import dev.skail.runtime.SkailRuntime;
import dev.skail.web.SkailApiController;
import dev.skail.web.SkailApiKey;
import dev.skail.web.SkailMonitorController;
import dev.skail.web.SkailScheduleController;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/** Auto-configuration of the skail HTTP API in a servlet web application. */
@AutoConfiguration(after = SkailAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBean(SkailRuntime.class)
@ConditionalOnBooleanProperty(name = "skail.http.enabled", matchIfMissing = true)
public final class SkailWebAutoConfiguration {

    private static final Log logger = LogFactory.getLog(SkailWebAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    SkailApiKey skailApiKey(SkailProperties properties) {
        String key = properties.getHttp().getApiKey();
        if (key == null || key.isBlank()) {
            logger.warn("skail.http.api-key is not set: the skail routes (/trigger, /api/v1/..., the Monitor at /skail) "
                    + "answer anyone who reaches this application. Set it in production");
        }
        return new SkailApiKey(key);
    }

    @Bean
    @ConditionalOnMissingBean
    SkailApiController skailApiController(SkailRuntime runtime, SkailProperties properties, SkailApiKey apiKey) {
        SkailApiController controller = new SkailApiController(runtime,
                properties.getHttp().getMaxBodySize().toBytes(), apiKey);
        controller.setMaxWait(properties.getHttp().getMaxWait());
        controller.setMaxBulk(properties.getHttp().getMaxBulk());
        return controller;
    }

    @Bean
    @ConditionalOnMissingBean
    SkailScheduleController skailScheduleController(SkailRuntime runtime, SkailApiKey apiKey) {
        return new SkailScheduleController(runtime, apiKey);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "skail.http.monitor", matchIfMissing = true)
    SkailMonitorController skailMonitorController(SkailApiKey apiKey) {
        return new SkailMonitorController(apiKey);
    }
}
