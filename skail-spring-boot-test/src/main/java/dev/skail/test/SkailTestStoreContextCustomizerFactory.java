package dev.skail.test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Gives each application context of a {@link SkailTest} its own in-memory store (registered by {@link SkailTest}
 * itself). The customizer is the same for every such test, so it does not split Spring's context cache: the URL
 * is drawn when a context starts, not when its cache key is made.
 */
final class SkailTestStoreContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass,
            List<ContextConfigurationAttributes> configAttributes) {
        return new FreshStore();
    }

    /** Sets {@code skail.store.url} to a new embedded store in memory, below the test's own properties. */
    static final class FreshStore implements ContextCustomizer {

        static final String PROPERTY_SOURCE_NAME = "skailTestStore";

        static final String URL_PREFIX = "local:mem:skail-test-";

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            String url = URL_PREFIX + UUID.randomUUID();
            MapPropertySource store = new MapPropertySource(PROPERTY_SOURCE_NAME, Map.of("skail.store.url", url));
            // above the application's configuration (application.yml, environment variables, system properties),
            // below what the test says: @SkailTest(properties, args), @TestPropertySource, @DynamicPropertySource
            MutablePropertySources sources = context.getEnvironment().getPropertySources();
            if (sources.contains(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)) {
                sources.addBefore(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, store);
            }
            else {
                sources.addLast(store);
            }
        }

        @Override
        public boolean equals(@Nullable Object other) {
            return other != null && other.getClass() == getClass();
        }

        @Override
        public int hashCode() {
            return FreshStore.class.hashCode();
        }
    }
}
