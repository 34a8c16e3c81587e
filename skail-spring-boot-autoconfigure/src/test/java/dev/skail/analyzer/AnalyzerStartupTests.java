package dev.skail.analyzer;

import dev.skail.SkailFunction;
import dev.skail.autoconfigure.SkailAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** skail.analyzer.mode: fail (default) stops start-up with a report; warn logs; off does not run. */
class AnalyzerStartupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.store.url=jdbc:h2:mem:analyzer;DB_CLOSE_DELAY=-1",
                "skail.worker.enabled=false")
        .withUserConfiguration(ReadsTheClock.class);

    @Test
    void byDefaultStartUpFailsWithAReportNamingClassMethodLineCallAndFix() {
        this.runner.run((context) -> {
            assertThat(context).hasFailed();
            Throwable cause = context.getStartupFailure();
            while (cause != null && !(cause instanceof SkailDeterminismException)) {
                cause = cause.getCause();
            }
            assertThat(cause).isInstanceOf(SkailDeterminismException.class);
            FailureAnalysis analysis = new SkailDeterminismFailureAnalyzer().analyze(cause);
            assertThat(analysis.getDescription()).contains(ReadsTheClock.class.getName() + ".enviarLembrete")
                .contains("AnalyzerStartupTests.java:")
                .contains("java.time.Instant.now");
            assertThat(analysis.getAction()).contains("use Skail.now()");
        });
    }

    @Test
    void warnModeStarts() {
        this.runner.withPropertyValues("skail.analyzer.mode=warn").run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void offModeStarts() {
        this.runner.withPropertyValues("skail.analyzer.mode=off").run((context) -> assertThat(context).hasNotFailed());
    }

    public static class ReadsTheClock {

        @SkailFunction
        public String enviarLembrete(String id) {
            return id + java.time.Instant.now();
        }
    }
}
