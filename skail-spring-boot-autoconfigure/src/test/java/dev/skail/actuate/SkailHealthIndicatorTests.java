package dev.skail.actuate;

import dev.skail.autoconfigure.SkailAutoConfiguration;
import dev.skail.autoconfigure.SkailHealthContributorAutoConfiguration;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.StoreUnavailableException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

class SkailHealthIndicatorTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class,
                SkailHealthContributorAutoConfiguration.class))
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.store.url=jdbc:h2:mem:health;DB_CLOSE_DELAY=-1");

    @Test
    void upWithWorkloadVersionAndCountsWhenStoreAnswersAndWorkerRuns() {
        this.runner.run((context) -> {
            Health health = context.getBean(SkailHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("workload", "vendas")
                .containsEntry("version", "v1.0.0")
                .containsEntry("ready", 0L)
                .containsEntry("running", 0L)
                .containsEntry("failed", 0L);
        });
    }

    @Test
    void downWithTheReasonWhenTheStoreDoesNotAnswer() {
        ExecutionStore store = mock(ExecutionStore.class);
        given(store.counts(anyString(), anyString(), anyLong()))
            .willThrow(new StoreUnavailableException("connection refused", new RuntimeException()));
        this.runner.withPropertyValues("skail.worker.enabled=false")
            .withBean(ExecutionStore.class, () -> store)
            .run((context) -> {
                Health health = context.getBean(SkailHealthIndicator.class).health(true);
                assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                assertThat(health.getDetails().get("error").toString()).contains("connection refused");
            });
    }

    @Test
    void downWhenTheWorkerIsStopped() {
        this.runner.run((context) -> {
            context.getBean(dev.skail.runtime.SkailWorker.class).stop();
            Health health = context.getBean(SkailHealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("worker", "stopped");
        });
    }
}
