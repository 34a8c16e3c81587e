package dev.skail.runtime;

import java.time.ZoneId;
import java.util.List;

import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailSchedule;
import dev.skail.autoconfigure.SkailAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @SkailSchedule} declarations are checked at start-up: every invalid one fails it, in one report that names
 * the method, the problem and the fix; placeholders are resolved from the environment, and {@code "-"} disables.
 */
class ScheduleDeclarationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
        .withPropertyValues("skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:schedule-validation;DB_CLOSE_DELAY=-1", "skail.worker.enabled=false");

    @Test
    void everyInvalidScheduleIsReportedWithItsMethodAndFix() {
        this.runner.withUserConfiguration(InvalidSchedules.class, CommandWithSchedule.class).run((context) -> {
            assertThat(context).hasFailed();
            SkailDeclarationException failure = rootCause(context.getStartupFailure());
            List<String> problems = failure.problems().stream().map((p) -> p.where() + ": " + p.problem()).toList();
            assertThat(problems)
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.cronInvalido")
                    .contains("cron '0 0 25 * * *', which is not valid").contains("HourOfDay"))
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.cincoCampos")
                    .contains("must consist of 6 fields"))
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.zonaInvalida")
                    .contains("zone 'America/Sao_Pablo', which is not a time zone"))
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.comParametros")
                    .contains("1 parameter(s): a schedule starts the function with none"))
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.semPropriedade")
                    .contains("'${pedidos.relatorio.cron}', whose placeholder cannot be resolved"))
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.nunca").contains("never fires"))
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.semFunction")
                    .contains("is not a @SkailFunction"))
                .anySatisfy((p) -> assertThat(p).contains("CommandWithSchedule.cobrar")
                    .contains("is not a @SkailFunction"))
                .anySatisfy((p) -> assertThat(p).contains("InvalidSchedules.nomeLongo")
                    .contains("cannot start the id of its executions"));
            assertThat(failure.problems()).hasSize(9).allSatisfy((p) -> assertThat(p.fix()).isNotBlank());
            FailureAnalysis analysis = new SkailDeclarationFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains("InvalidSchedules.zonaInvalida");
            assertThat(analysis.getAction()).contains("java.time.ZoneId");
        });
    }

    @Test
    void placeholdersAreResolvedFromTheEnvironmentAndADashDisables() {
        this.runner.withUserConfiguration(ConfiguredSchedules.class)
            .withPropertyValues("pedidos.relatorio.cron=0 30 6 * * MON-FRI", "pedidos.relatorio.zone=America/Sao_Paulo",
                    "pedidos.limpeza.cron=-")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                SkailCatalog catalog = context.getBean(SkailRuntime.class).catalog();
                assertThat(catalog.schedules()).extracting(ScheduleDefinition::function, ScheduleDefinition::cron,
                        ScheduleDefinition::zone, ScheduleDefinition::enabled)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("limpeza", "-", ZoneId.of("UTC"), false),
                            org.assertj.core.groups.Tuple.tuple("padrao", "0 0 * * * *", ZoneId.of("UTC"), true),
                            org.assertj.core.groups.Tuple.tuple("relatorio", "0 30 6 * * MON-FRI",
                                    ZoneId.of("America/Sao_Paulo"), true));
            });
    }

    private static SkailDeclarationException rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause != null && !(cause instanceof SkailDeclarationException)) {
            cause = cause.getCause();
        }
        assertThat(cause).as("cause of %s", failure).isInstanceOf(SkailDeclarationException.class);
        return (SkailDeclarationException) cause;
    }

    public static class InvalidSchedules {

        @SkailFunction
        @SkailSchedule(cron = "0 0 25 * * *")
        public void cronInvalido() {
        }

        @SkailFunction
        @SkailSchedule(cron = "0 6 * * *")
        public void cincoCampos() {
        }

        @SkailFunction
        @SkailSchedule(cron = "0 0 6 * * *", zone = "America/Sao_Pablo")
        public void zonaInvalida() {
        }

        @SkailFunction
        @SkailSchedule(cron = "0 0 6 * * *")
        public void comParametros(String pedidoId) {
        }

        @SkailFunction
        @SkailSchedule(cron = "${pedidos.relatorio.cron}")
        public void semPropriedade() {
        }

        @SkailFunction
        @SkailSchedule(cron = "0 0 0 30 2 *")
        public void nunca() {
        }

        @SkailSchedule(cron = "0 0 6 * * *")
        public void semFunction() {
        }

        @SkailFunction(name = "relatorioDePedidosComUmNomeQueNaoCabeNoIdDeUmaExecucaoPorqueOIdTemNoMaximoCentoEVinteEOitoCaracteresNemComUmInstante")
        @SkailSchedule(cron = "0 0 6 * * *")
        public void nomeLongo() {
        }
    }

    public static class CommandWithSchedule {

        @SkailCommand
        @SkailSchedule(cron = "0 0 6 * * *")
        public void cobrar() {
        }
    }

    public static class ConfiguredSchedules {

        @SkailFunction(name = "relatorio")
        @SkailSchedule(cron = "${pedidos.relatorio.cron}", zone = "${pedidos.relatorio.zone}")
        public void relatorioDePedidos() {
        }

        @SkailFunction
        @SkailSchedule(cron = "${pedidos.limpeza.cron:0 0 3 * * *}")
        public void limpeza() {
        }

        @SkailFunction
        @SkailSchedule(cron = "${pedidos.padrao.cron:0 0 * * * *}")
        public void padrao() {
        }
    }
}
