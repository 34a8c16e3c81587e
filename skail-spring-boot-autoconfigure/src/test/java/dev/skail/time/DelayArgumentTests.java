package dev.skail.time;

import java.time.Duration;

import dev.skail.ExecutionStatus;
import dev.skail.Skail;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
import dev.skail.SkailStep;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/** A negative {@code Skail.delay} is a programming error, inside an execution or not; a zero delay is allowed. */
@SpringBootTest(classes = DelayArgumentTests.DelayApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
        "skail.retry.backoff.max=0ms" })
class DelayArgumentTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Test
    void negativeDelayOutsideAnExecutionThrows() {
        assertThatIllegalArgumentException().isThrownBy(() -> Skail.delay(Duration.ofSeconds(-1)))
            .withMessageStartingWith("Skail.delay needs a duration of zero or more, got PT-1S");
        assertThatIllegalArgumentException().isThrownBy(() -> Skail.delaySeconds(-5))
            .withMessageContaining("got PT-5S");
        assertThatIllegalArgumentException().isThrownBy(() -> Skail.delayMinutes(-1))
            .withMessageContaining("got PT-1M");
        assertThatIllegalArgumentException().isThrownBy(() -> Skail.delay(null));
        assertThatNoException().isThrownBy(() -> Skail.delay(Duration.ZERO));
    }

    @Test
    void negativeDelayInsideAnExecutionFailsItWithTheMessageAndRecordsNoDelay() {
        this.client.trigger("esperarNegativo", "negative-1");

        SkailExecution failed = this.await.status("negative-1", ExecutionStatus.FAILED);

        assertThat(failed.error().type()).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(failed.error().message()).startsWith("Skail.delay needs a duration of zero or more, got PT-1H");
        assertThat(this.client.history("negative-1").steps()).extracting(SkailStep::kind).doesNotContain("DELAY");
    }

    @Test
    void zeroDelayIsRecordedAndReturnsAtOnce() {
        this.client.trigger("esperarZero", "zero-1");

        SkailExecution done = this.await.status("zero-1", ExecutionStatus.COMPLETED);

        assertThat(done.result(String.class)).isEqualTo("done");
        assertThat(this.client.history("zero-1").steps()).extracting(SkailStep::kind).containsExactly("DELAY");
    }

    public static class DelayFlows {

        @SkailFunction
        public String esperarNegativo() {
            Skail.delay(Duration.ofHours(-1));
            return "unreachable";
        }

        @SkailFunction
        public String esperarZero() {
            Skail.delay(Duration.ZERO);
            return "done";
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ DelayFlows.class, SkailTestConfiguration.class })
    static class DelayApp {

    }
}
