package dev.skail.autoconfigure;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import dev.skail.platform.jdbc.StorePreloading;
import dev.skail.runtime.SkailJson;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;

/**
 * Spring Boot's background pre-initialization (the thread it starts once the environment is prepared, next to its own
 * charsets and conversion service) extended to what skail's start-up waits for most: Jackson and skail's JSON codec,
 * the embedded store's classes (a throwaway store in memory), or, when the store's URL, given as a system property or
 * an environment variable, is a JDBC one, the pool's classes and, for H2, H2's engine with skail's schema (on a
 * throwaway in-memory database). The context then finds them loaded, while it was reading its configuration
 * meanwhile. It changes no state of the application and
 * opens none of its files or databases; Spring Boot skips it, with its own, on one processor, in a native image, or with
 * {@code -Dspring.backgroundpreinitializer.ignore=true}.
 */
final class SkailBackgroundPreinitializer implements BackgroundPreinitializer {

    @Override
    public void preinitialize() throws Exception {
        SkailJson json = SkailJson.createDefault();
        json.read(json.write(Map.of("amount", new BigDecimal("10.50"), "at",
                OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(-3)), "items", List.of("a"))), Map.class);
        String property = System.getProperty("skail.store.url");
        String environment = System.getenv("SKAIL_STORE_URL");
        if (mayBeEmbedded(property, environment)) {
            StorePreloading.preloadLocal();
        }
        else {
            StorePreloading.preload(mayBeH2(property, environment));
        }
    }

    /**
     * Whether the store may be the embedded one (the store skail keeps itself, the default). A pre-initializer sees no
     * {@code Environment}: only a store URL set as a system property or an environment variable is known here; one in
     * {@code application.yml} is not, and the embedded store is then prepared anyway (in the background, in memory,
     * and thrown away).
     */
    static boolean mayBeEmbedded(@Nullable String property, @Nullable String environment) {
        String url = (property != null) ? property : environment;
        return url == null || url.startsWith("local:");
    }

    /** Whether the store, given as a system property or an environment variable, is an H2 database. */
    static boolean mayBeH2(@Nullable String property, @Nullable String environment) {
        String url = (property != null) ? property : environment;
        return url != null && url.startsWith("jdbc:h2:");
    }
}
