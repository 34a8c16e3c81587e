package dev.skail.replay;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.test.SkailAwait;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** The application's own clock is its business: a fixed one does not stop skail's delays, leases or polling. */
@SpringBootTest(classes = BusinessClockTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=20ms" })
class BusinessClockTests {

    static final Instant BUSINESS_TIME = Instant.parse("2020-01-01T00:00:00Z");

    @Autowired
    SkailClient client;

    @Test
    void delaysAndSkailNowRunOnSkailsTimeNotOnAFixedApplicationClock() {
        Instant before = Instant.now();
        this.client.trigger("lembrarAmanha", "lembrete-1", "pedido-1");

        SkailExecution execution = new SkailAwait(this.client, Duration.ofSeconds(20)).status("lembrete-1",
                ExecutionStatus.COMPLETED);

        Instant now = execution.result(Instant.class);
        assertThat(now).isAfterOrEqualTo(before.plusMillis(300).minusMillis(5)).isBefore(Instant.now().plusSeconds(1));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ReplayFlows.class)
    static class App {

        @Bean
        Clock clock() {
            return Clock.fixed(BUSINESS_TIME, ZoneOffset.UTC);
        }
    }
}
