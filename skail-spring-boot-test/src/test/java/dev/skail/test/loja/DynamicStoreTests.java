package dev.skail.test.loja;

import dev.skail.autoconfigure.SkailProperties;
import dev.skail.test.SkailTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/** A store URL that a {@code @DynamicPropertySource} gives (a database the test starts) is used instead of the fresh one. */
@SkailTest
class DynamicStoreTests {

    @DynamicPropertySource
    static void store(DynamicPropertyRegistry registry) {
        registry.add("skail.store.url", () -> "jdbc:h2:mem:started-by-the-test;DB_CLOSE_DELAY=-1");
    }

    @Autowired
    SkailProperties properties;

    @Test
    void theStoreIsTheOneTheTestStarted() {
        assertThat(this.properties.getStore().getUrl()).isEqualTo("jdbc:h2:mem:started-by-the-test;DB_CLOSE_DELAY=-1");
    }
}
