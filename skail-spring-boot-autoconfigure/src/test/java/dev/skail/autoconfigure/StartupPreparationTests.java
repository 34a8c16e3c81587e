package dev.skail.autoconfigure;

import java.util.List;

import dev.skail.platform.jdbc.StorePreloading;
import org.h2.store.fs.FilePath;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the starter does to start sooner: Spring Boot's background pre-initialization loads skail's JSON codec and
 * H2 with skail's schema, and leaves nothing behind (what the enhancer skips: {@code EnhancerScopeTests}).
 */
class StartupPreparationTests {

    @Test
    void springBootFindsSkailsBackgroundPreinitializer() {
        List<BackgroundPreinitializer> preinitializers = SpringFactoriesLoader.forDefaultResourceLocation()
            .load(BackgroundPreinitializer.class);
        assertThat(preinitializers).hasAtLeastOneElementOfType(SkailBackgroundPreinitializer.class);
    }

    @Test
    void preinitializingTwiceSucceedsAndLeavesNoDatabaseInH2sMemoryFileSystem() throws Exception {
        // H2 prepared whatever SKAIL_STORE_URL the test's process has
        StorePreloading.preload(true);
        StorePreloading.preload(true);
        assertThat(FilePath.get("memFS:").newDirectoryStream())
            .noneMatch((file) -> file.getName().startsWith("skail-preload"));
    }

    @Test
    void theEmbeddedStoreIsPreparedUnlessTheStoreUrlGivenToTheProcessIsAJdbcOne() {
        assertThat(SkailBackgroundPreinitializer.mayBeEmbedded(null, null)).isTrue();
        assertThat(SkailBackgroundPreinitializer.mayBeEmbedded("local:/var/skail", null)).isTrue();
        assertThat(SkailBackgroundPreinitializer.mayBeEmbedded(null, "jdbc:postgresql://db:5432/skail")).isFalse();
        assertThat(SkailBackgroundPreinitializer.mayBeH2(null, null)).isFalse();
        assertThat(SkailBackgroundPreinitializer.mayBeH2("jdbc:h2:file:/var/skail/skail", null)).isTrue();
        assertThat(SkailBackgroundPreinitializer.mayBeH2(null, "jdbc:postgresql://db:5432/skail")).isFalse();
        // the system property wins over the environment, as in Spring's property sources
        assertThat(SkailBackgroundPreinitializer.mayBeH2("jdbc:h2:mem:x", "jdbc:postgresql://db:5432/skail")).isTrue();
        assertThat(SkailBackgroundPreinitializer.mayBeEmbedded("jdbc:h2:mem:x", null)).isFalse();
    }
}
