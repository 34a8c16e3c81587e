package dev.skail.benchmarks;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * The application the scenarios A to E and G run in: a non-web Spring Boot application with skail's auto-configuration and
 * {@link BenchFunctions}, nothing scanned. The store is configured as an application configures it, with
 * {@code skail.store.*} properties (system properties set by the harness); nothing weakens durability.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(BenchFunctions.class)
public class BenchApplication {

    /** Starts the application with {@code extra} configuration classes (D adds a virtual clock). */
    static ConfigurableApplicationContext start(Class<?>... extra) {
        Class<?>[] sources = new Class<?>[extra.length + 1];
        sources[0] = BenchApplication.class;
        System.arraycopy(extra, 0, sources, 1, extra.length);
        return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
            .properties("skail.workload=benchmark:v1", "spring.main.banner-mode=off", "logging.level.root=WARN")
            .run();
    }
}
