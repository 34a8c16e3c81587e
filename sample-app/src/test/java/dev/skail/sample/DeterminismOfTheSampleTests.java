package dev.skail.sample;

import java.lang.reflect.Method;
import java.util.List;
import java.util.stream.Stream;

import dev.skail.SkailFunction;
import dev.skail.analyzer.DeterminismAnalyzer;
import dev.skail.analyzer.Finding;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample's functions pass the determinism analyzer (it runs in fail mode at start-up too). */
@SpringBootTest(properties = "skail.store.url=jdbc:h2:mem:sample-analyzer;DB_CLOSE_DELAY=-1")
class DeterminismOfTheSampleTests {

    @Test
    void sampleFunctionsHaveNoFinding() {
        List<Method> functions = Stream.of(Pedidos.class, Lembretes.class)
            .flatMap((type) -> Stream.of(type.getDeclaredMethods()))
            .filter((method) -> method.isAnnotationPresent(SkailFunction.class))
            .toList();
        assertThat(functions).extracting(Method::getName)
            .contains("processarPedido", "enviarLembrete", "enviarLembreteLendoRelogio");

        List<Finding> findings = new DeterminismAnalyzer().analyze(functions);

        assertThat(findings).isEmpty();
    }
}
