package dev.skail.results;

import java.math.BigDecimal;

import dev.skail.Skail;
import dev.skail.SkailFunction;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** The functions whose results the tests wait for. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ResultsApp.Pagamentos.class)
public class ResultsApp {

    /** A receipt: a record with a BigDecimal, read back with the function's declared return type. */
    public record Recibo(String pedido, BigDecimal total) {
    }

    public static class Pagamentos {

        @SkailFunction
        public Recibo pagar(String pedido, BigDecimal valor) {
            return new Recibo(pedido, valor.add(new BigDecimal("0.50")));
        }

        @SkailFunction(retryCount = 0)
        public Recibo recusar(String motivo) {
            throw new IllegalStateException("recusado: " + motivo);
        }

        @SkailFunction
        public String esperarAprovacao(String pedido) {
            String quem = Skail.waitForEvent("aprovado", String.class);
            return pedido + " aprovado por " + quem;
        }
    }
}
