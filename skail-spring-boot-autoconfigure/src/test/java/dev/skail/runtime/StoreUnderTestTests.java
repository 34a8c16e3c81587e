package dev.skail.runtime;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Boot tests run on the store their execution names: in-memory H2 by default, PostgreSQL (a schema of
 * their own) when {@value PostgreSqlStoreEnvironmentPostProcessor#SWITCH} is {@code postgresql}, so a broken switch
 * cannot pass the second execution off as PostgreSQL while it runs on H2.
 */
class StoreUnderTestTests extends SkailTestSupport {

    @Autowired
    Environment environment;

    @Test
    void storeIsTheOneTheTestExecutionNames() {
        if ("postgresql".equals(System.getProperty(PostgreSqlStoreEnvironmentPostProcessor.SWITCH))) {
            assertThat(this.environment.getProperty("skail.store.url")).isEqualTo(PostgreSqlForTests.url());
            assertThat(this.environment.getProperty("skail.store.schema")).startsWith("boot_");
        }
        else {
            assertThat(this.environment.getProperty("skail.store.url")).startsWith("jdbc:h2:mem:");
        }
    }
}
