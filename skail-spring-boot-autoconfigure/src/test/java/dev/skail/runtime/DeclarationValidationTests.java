package dev.skail.runtime;

import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.autoconfigure.SkailAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Invalid declarations fail start-up with one report that lists every problem with its method and fix. */
class DeclarationValidationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.store.url=jdbc:h2:mem:validation;DB_CLOSE_DELAY=-1",
                "skail.worker.enabled=false");

    @Test
    void everyInvalidDeclarationIsReportedWithItsMethodAndFix() {
        this.runner.withUserConfiguration(Invalid.class, Duplicate.class).run((context) -> {
            assertThat(context).hasFailed();
            SkailDeclarationException failure = rootCause(context.getStartupFailure());
            List<String> problems = failure.problems().stream().map((p) -> p.where() + ": " + p.problem()).toList();
            assertThat(problems).anySatisfy((p) -> assertThat(p).contains("Invalid.privado").contains("private"))
                .anySatisfy((p) -> assertThat(p).contains("Invalid.estatico").contains("static"))
                .anySatisfy((p) -> assertThat(p).contains("Invalid.finalizado").contains("final"))
                .anySatisfy((p) -> assertThat(p).contains("Invalid.recebeInterface").contains("parameter 0")
                    .contains("java.lang.Runnable"))
                .anySatisfy((p) -> assertThat(p).contains("Invalid.devolveVazio").contains("return type")
                    .contains("Vazio"))
                .anySatisfy((p) -> assertThat(p).contains("Duplicate.processar")
                    .contains("function name 'processarPedido'").contains("Invalid.processarPedido"));
            assertThat(failure.problems()).allSatisfy((p) -> assertThat(p.fix()).isNotBlank());
            assertThat(failure.problems()).hasSize(6);
        });
    }

    @Test
    void finalClassAndBeanMethodDeclarationsAreReported() {
        this.runner.withUserConfiguration(FinalFlow.class, FactoryConfig.class).run((context) -> {
            SkailDeclarationException failure = rootCause(context.getStartupFailure());
            assertThat(failure.problems()).extracting(SkailDeclarationException.Problem::problem)
                .anySatisfy((p) -> assertThat(p).isEqualTo("is final"))
                .anySatisfy((p) -> assertThat(p).contains("@Bean factory method"));
        });
    }

    @Test
    void functionsOfAConfigurationClassAreReportedRatherThanSkipped() {
        this.runner.withUserConfiguration(FlowsInConfiguration.class).run((context) -> {
            SkailDeclarationException failure = rootCause(context.getStartupFailure());
            assertThat(failure.problems()).singleElement().satisfies((problem) -> {
                assertThat(problem.where()).isEqualTo(FlowsInConfiguration.class.getName());
                assertThat(problem.problem()).contains("@Configuration class");
            });
        });
    }

    @Test
    void typesAreCheckedWithTheApplicationsOwnSkailJson() {
        // the application's codec knows how to read Runnable (a mix-in, a module...): this one accepts every type
        SkailJson lenient = new SkailJson(tools.jackson.databind.json.JsonMapper.builder().build()) {
            @Override
            public String whyNotReadable(java.lang.reflect.Type type) {
                return null;
            }
        };
        this.runner.withUserConfiguration(TakesRunnable.class)
            .withBean("applicationJson", SkailJson.class, () -> lenient)
            .run((context) -> assertThat(context).hasNotFailed());
        // and one that refuses: the problem is reported at start-up, with the application's codec
        SkailJson strict = new SkailJson(tools.jackson.databind.json.JsonMapper.builder().build()) {
            @Override
            public String whyNotReadable(java.lang.reflect.Type type) {
                return "refused by the application's codec";
            }
        };
        this.runner.withUserConfiguration(TakesRunnable.class)
            .withBean("applicationJson", SkailJson.class, () -> strict)
            .run((context) -> assertThat(rootCause(context.getStartupFailure()).problems())
                .anySatisfy((p) -> assertThat(p.problem()).contains("refused by the application's codec")));
    }

    public static class TakesRunnable {

        @SkailFunction
        public void takesRunnable(Runnable runnable) {
        }
    }

    @Test
    void skailTagIsRefusedOnAParameterThatIsNotASimpleValueOnACommandAndWithABadKey() {
        this.runner.withUserConfiguration(BadTags.class).run((context) -> {
            SkailDeclarationException failure = rootCause(context.getStartupFailure());
            assertThat(failure.problems()).hasSize(3);
            assertThat(failure.problems()).anySatisfy((p) -> {
                assertThat(p.where()).endsWith("BadTags.porPedidoInteiro");
                assertThat(p.problem()).isEqualTo("parameter 0 of type java.util.Map<java.lang.String, "
                        + "java.math.BigDecimal> has @SkailTag, but a tag is the text of a simple value");
                assertThat(p.fix()).contains("String, UUID, number, boolean, char or enum")
                    .contains("SkailContext.current().tag(\"pedido\", value)");
            }).anySatisfy((p) -> {
                assertThat(p.where()).endsWith("BadTags.cobrar");
                assertThat(p.problem()).contains("parameter 0 of a @SkailCommand has @SkailTag");
            }).anySatisfy((p) -> {
                assertThat(p.where()).endsWith("BadTags.comChaveRuim");
                assertThat(p.problem()).contains("@SkailTag(\"id do pedido\")").contains("letters, digits");
            });
        });
    }

    @Test
    void skailTagOnSimpleParametersStarts() {
        this.runner.withUserConfiguration(GoodTags.class).run((context) -> assertThat(context).hasNotFailed());
    }

    public static class BadTags {

        @SkailFunction
        public void porPedidoInteiro(@dev.skail.SkailTag("pedido") java.util.Map<String, java.math.BigDecimal> itens) {
        }

        @SkailCommand
        public void cobrar(@dev.skail.SkailTag("pedido") String pedidoId) {
        }

        @SkailFunction
        public void comChaveRuim(@dev.skail.SkailTag("id do pedido") String pedidoId) {
        }
    }

    public static class GoodTags {

        @SkailFunction
        public void processar(@dev.skail.SkailTag("pedido") java.util.UUID pedidoId,
                @dev.skail.SkailTag("cliente") String cliente, @dev.skail.SkailTag("loja") int loja,
                @dev.skail.SkailTag("valor") java.math.BigDecimal valor,
                @dev.skail.SkailTag("status") ExecutionStatus status, @dev.skail.SkailTag("urgente") boolean urgente) {
        }
    }

    @Test
    void failureAnalysisListsEachProblemAndItsFix() {
        SkailDeclarationException exception = new SkailDeclarationException(
                List.of(new SkailDeclarationException.Problem("a.B.c", "@SkailCommand method is private", "make it public")));

        FailureAnalysis analysis = new SkailDeclarationFailureAnalyzer().analyze(exception);

        assertThat(analysis.getDescription()).contains("a.B.c").contains("@SkailCommand method is private");
        assertThat(analysis.getAction()).contains("a.B.c").contains("make it public");
    }

    @Test
    void validDeclarationsStartAndAreListedByName() {
        this.runner.withUserConfiguration(Valid.class).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(SkailRuntime.class).catalog().function("renamed")).isPresent();
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

    public static class Invalid {

        @SkailFunction
        public void processarPedido(String id) {
        }

        @SkailCommand
        private void privado() {
        }

        @SkailCommand
        public static void estatico() {
        }

        @SkailCommand
        public final void finalizado() {
        }

        @SkailFunction
        public void recebeInterface(Runnable runnable) {
        }

        @SkailCommand
        public Vazio devolveVazio() {
            return new Vazio();
        }
    }

    public static class Duplicate {

        @SkailFunction(name = "processarPedido")
        public void processar(String id) {
        }
    }

    public static class Vazio {

    }

    public static final class FinalFlow {

        @SkailFunction
        public void finalFlow() {
        }
    }

    public static class Valid {

        @SkailFunction(name = "renamed")
        public String processar(List<String> ids) {
            return String.join(",", ids);
        }
    }

    public static class Made {

        @SkailCommand
        public String made() {
            return "made";
        }
    }

    @Configuration
    public static class FlowsInConfiguration {

        @Bean
        String someBean() {
            return "a bean";
        }

        @SkailFunction
        public void inConfiguration() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FactoryConfig {

        @Bean
        Made made() {
            return new Made();
        }
    }
}
