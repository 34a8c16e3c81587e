package dev.skail.aot;

import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;

import dev.skail.SkailCommand;
import dev.skail.SkailFunction;

/**
 * An order flow for the AOT tests: a function that calls its commands through {@code this}, a parameter of a record
 * type with a generic list, a command that declares a checked exception. Public, as the code Spring AOT generates for
 * it is compiled and loaded by another class loader in the tests.
 */
public class Encomendas {

    private final Livro livro;

    public Encomendas(Livro livro) {
        this.livro = livro;
    }

    @SkailFunction
    public String processarEncomenda(Encomenda encomenda) throws FalhaDeCobranca {
        reservar(encomenda.id());
        return cobrar(encomenda.id(), encomenda.valor());
    }

    @SkailCommand
    public String reservar(UUID id) {
        this.livro.anotar("reservar " + id);
        return "reserva-" + id;
    }

    @SkailCommand(retryCount = 2)
    public String cobrar(UUID id, BigDecimal valor) throws FalhaDeCobranca {
        this.livro.anotar("cobrar " + id + " " + valor);
        return "cobrado " + valor;
    }

    /** An order: its id, its value, its items. */
    public record Encomenda(UUID id, BigDecimal valor, List<Item> itens) {
    }

    /** An item of an order. */
    public record Item(String sku, int quantidade) {
    }

    /** The gateway refused the charge. */
    public static class FalhaDeCobranca extends Exception {

        private static final long serialVersionUID = 1L;

        private final String codigo;

        public FalhaDeCobranca(String codigo) {
            super("charge refused: " + codigo);
            this.codigo = codigo;
        }

        public String codigo() {
            return this.codigo;
        }
    }

    /** What the commands did, in order. */
    public static class Livro {

        private final List<String> linhas = new java.util.concurrent.CopyOnWriteArrayList<>();

        public void anotar(String linha) {
            this.linhas.add(linha);
        }

        public List<String> linhas() {
            return this.linhas;
        }
    }
}
