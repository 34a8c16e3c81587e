package dev.skail.sample;

import java.util.List;

import dev.skail.analyzer.DeterminismAnalyzer;
import dev.skail.analyzer.Finding;
import dev.skail.runtime.FunctionDefinition;
import dev.skail.runtime.SkailRuntime;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample's functions pass the determinism analyzer (it runs in fail mode at start-up too). */
@SpringBootTest(properties = "skail.store.url=jdbc:h2:mem:sample-analyzer;DB_CLOSE_DELAY=-1")
class DeterminismOfTheSampleTests {

    @Autowired
    SkailRuntime runtime;

    @Test
    void sampleFunctionsHaveNoFinding() {
        List<FunctionDefinition> functions = List.copyOf(this.runtime.catalog().functions());
        assertThat(functions).extracting(FunctionDefinition::name)
            .contains("processarPedido", "enviarLembrete", "enviarLembreteLendoRelogio");

        List<Finding> findings = new DeterminismAnalyzer()
            .analyze(functions.stream().map((function) -> function.step().method()).toList());

        assertThat(findings).isEmpty();
    }
}
