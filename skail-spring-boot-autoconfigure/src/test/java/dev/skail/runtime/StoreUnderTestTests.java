package dev.skail.runtime;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Boot tests run on the store their execution names: in-memory H2 by default, PostgreSQL (a schema of
 * their own) when {@value TestStoreEnvironmentPostProcessor#SWITCH} is {@code postgresql}, the local store in memory
 * when it is {@code local}, so a broken switch cannot pass a run off as another store's.
 */
class StoreUnderTestTests extends SkailTestSupport {

    @Autowired
    Environment environment;

    @Autowired
    dev.skail.platform.ExecutionStore store;

    @Test
    void storeIsTheOneTheTestExecutionNames() {
        if ("postgresql".equals(System.getProperty(TestStoreEnvironmentPostProcessor.SWITCH))) {
            assertThat(this.environment.getProperty("skail.store.url")).isEqualTo(PostgreSqlForTests.url());
            assertThat(this.environment.getProperty("skail.store.schema")).startsWith("boot_");
        }
        else if ("local".equals(System.getProperty(TestStoreEnvironmentPostProcessor.SWITCH))) {
            assertThat(this.environment.getProperty("skail.store.url")).startsWith("local:mem:");
            assertThat(this.store).isInstanceOf(dev.skail.platform.local.LocalStore.class);
        }
        else {
            assertThat(this.environment.getProperty("skail.store.url")).startsWith("jdbc:h2:mem:");
            assertThat(this.store).isInstanceOf(dev.skail.platform.jdbc.JdbcExecutionStore.class);
        }
    }
}
