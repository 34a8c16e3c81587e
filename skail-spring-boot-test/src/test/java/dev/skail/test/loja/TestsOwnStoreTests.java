package dev.skail.test.loja;

import dev.skail.autoconfigure.SkailProperties;
import dev.skail.test.SkailTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/** A store URL the test gives is used instead of the fresh one. */
@SkailTest(properties = "skail.store.url=jdbc:h2:mem:chosen-by-the-test;DB_CLOSE_DELAY=-1")
class TestsOwnStoreTests {

    @Autowired
    SkailProperties properties;

    @Test
    void theStoreIsTheOneTheTestNames() {
        assertThat(this.properties.getStore().getUrl()).isEqualTo("jdbc:h2:mem:chosen-by-the-test;DB_CLOSE_DELAY=-1");
    }
}
