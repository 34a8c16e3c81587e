package dev.skail.runtime;

import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Moves the Spring Boot tests' store when the system property {@value #SWITCH} is set: {@code postgresql} (the
 * module's second surefire execution sets it) makes an in-memory {@code skail.store.url} (H2's, or the embedded
 * store's, as {@code @SkailTest} gives) the PostgreSQL of the tests
 * ({@code bin/test-postgres}) with a schema of its own; {@code local} (the first execution sets it) makes an in-memory
 * H2 one the embedded store, in memory ({@code local:mem:<name>}). The same H2 URL in one JVM gets the same schema or the same named store, as it gets the
 * same in-memory database on H2, so a context never sees another context's executions. Other URLs (H2 files, stores a
 * test builds itself) are left as they are. Applications started by {@code ApplicationContextRunner} do not go through
 * {@link SpringApplication} and stay on H2.
 */
public class TestStoreEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    /** The system property that moves the tests' in-memory H2 stores to PostgreSQL or to the local store. */
    public static final String SWITCH = "skail.test.store";

    private static final Map<String, String> schemas = new ConcurrentHashMap<>();

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String store = System.getProperty(SWITCH);
        if (!"postgresql".equals(store) && !"local".equals(store)) {
            return;
        }
        String url = environment.getProperty("skail.store.url");
        boolean inMemory = url != null && (url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:")
                || url.startsWith("local:mem:"));
        if (!inMemory || ("local".equals(store) && url.startsWith("local:"))) {
            return;
        }
        if ("local".equals(store)) {
            environment.getPropertySources().addFirst(new MapPropertySource("skailTestLocal", Map.of("skail.store.url",
                    "local:mem:" + schemas.computeIfAbsent(url, (h2) -> UUID.randomUUID().toString()))));
            return;
        }
        String schema = schemas.computeIfAbsent(url,
                (h2) -> "boot_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20));
        environment.getPropertySources()
            .addFirst(new MapPropertySource("skailTestPostgreSql",
                    Map.of("skail.store.url", PostgreSqlForTests.url(), "skail.store.schema", schema)));
    }

    @Override
    public int getOrder() {
        // after the application's and the test's own properties are in the environment
        return Ordered.LOWEST_PRECEDENCE;
    }
}
