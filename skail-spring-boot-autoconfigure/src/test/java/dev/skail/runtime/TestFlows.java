package dev.skail.runtime;

import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;

/**
 * Functions and commands the runtime tests drive. Failures are chosen by the id argument: {@code fail-N-x} makes
 * {@code cobrarCartao} fail its first N runs, so every test is deterministic without shared switches.
 */
public class TestFlows {

    private final Effects effects;

    private final Estoque estoque;

    public TestFlows(Effects effects, Estoque estoque) {
        this.effects = effects;
        this.estoque = estoque;
    }

    private String taskId() {
        return SkailContext.current().taskId();
    }

    private int ran(String what) {
        return this.effects.ran(taskId(), what);
    }

    private static int failuresWanted(String id) {
        return id.startsWith("fail-") ? Integer.parseInt(id.split("-")[1]) : 0;
    }

    @SkailFunction
    public String processarPedido(String pedidoId) {
        reservarEstoque(pedidoId);
        String resultado;
        try {
            resultado = cobrarCartao(pedidoId);
        }
        catch (GatewayException ex) {
            this.effects.note(taskId(), "caught " + ex.getClass().getName() + ": " + ex.getMessage());
            liberarEstoque(pedidoId);
            return "COMPENSATED";
        }
        confirmarPedido(pedidoId);
        return resultado;
    }

    @SkailCommand
    public String reservarEstoque(String pedidoId) {
        ran("reservarEstoque");
        return "reserved " + pedidoId;
    }

    @SkailCommand(retryCount = 2)
    public String cobrarCartao(String pedidoId) throws GatewayException {
        int run = ran("cobrarCartao");
        if (run <= failuresWanted(pedidoId)) {
            throw new GatewayException("gateway unavailable (run " + run + ")");
        }
        return "APPROVED";
    }

    @SkailCommand
    public void liberarEstoque(String pedidoId) {
        int run = ran("liberarEstoque");
        if (pedidoId.endsWith("-flaky-release") && run == 1) {
            throw new IllegalStateException("stock service timed out");
        }
    }

    @SkailCommand
    public void confirmarPedido(String pedidoId) {
        ran("confirmarPedido");
    }

    /** Calls a command of another bean. */
    @SkailFunction
    public int reservarEmOutroBean(String sku, int quantidade) {
        int reservado = this.estoque.reservar(sku, quantidade);
        confirmarPedido(sku);
        return reservado;
    }

    /** S4: a command with retryCount = 0 fails into the function at once. */
    @SkailFunction
    public String debitar(String contaId) {
        try {
            debitarSaldo(contaId);
            return "DEBITED";
        }
        catch (IllegalStateException ex) {
            return "REFUSED: " + ex.getMessage();
        }
    }

    @SkailCommand(retryCount = 0)
    public void debitarSaldo(String contaId) {
        ran("debitarSaldo");
        throw new IllegalStateException("insufficient funds");
    }

    /** S19: a definitive failure skips the remaining retries. */
    @SkailFunction
    public String validarCpf(String cpf) {
        try {
            consultarReceita(cpf);
            return "VALID";
        }
        catch (IllegalArgumentException ex) {
            return "INVALID: " + ex.getMessage();
        }
    }

    @SkailCommand(retryCount = 5, noRetryFor = IllegalArgumentException.class)
    public void consultarReceita(String cpf) {
        int run = ran("consultarReceita");
        if (cpf.startsWith("timeout") && run == 1) {
            throw new IllegalStateException("Receita timed out");
        }
        if (cpf.contains("invalid")) {
            throw new NumberFormatException("CPF " + cpf + " has no valid check digits");
        }
    }

    /** S5: a function that fails after a command, redelivered twice. */
    @SkailFunction(retryCount = 2)
    public void faturar(String pedidoId) {
        emitirNota(pedidoId);
        ran("faturar-body");
        throw new IllegalArgumentException("tax code missing for " + pedidoId);
    }

    @SkailCommand
    public String emitirNota(String pedidoId) {
        ran("emitirNota");
        return "NF-" + pedidoId;
    }

    /** S5: an uncaught command failure makes the command run its attempts on every function attempt. */
    @SkailFunction(retryCount = 1)
    public void sincronizar(String id) {
        enviarAoErp(id);
    }

    @SkailCommand(retryCount = 1)
    public void enviarAoErp(String id) {
        int run = ran("enviarAoErp");
        throw new IllegalStateException("ERP offline (run " + run + ")");
    }

    /** Suspension cannot be swallowed by catch (Exception). */
    @SkailFunction
    public String engolirExcecoes(String pedidoId) {
        try {
            reservarEstoque(pedidoId);
            return cobrarCartao(pedidoId);
        }
        catch (Exception ex) {
            this.effects.note(taskId(), "swallowed " + ex);
            return "SWALLOWED";
        }
    }

    /** S5, S15: fails while its outside service is broken; resumed by hand once it is fixed. */
    @SkailFunction(retryCount = 0)
    public String pagarFatura(String id) {
        registrarChave("before");
        enviarPagamento(id);
        return "PAID";
    }

    @SkailCommand(retryCount = 1)
    public void enviarPagamento(String id) {
        SkailContext context = SkailContext.current();
        this.effects.note(context.taskId(), "send " + context.idempotencyKey() + " attempt " + context.attempt());
        if (this.effects.isBroken(context.taskId())) {
            throw new IllegalStateException("bank offline");
        }
    }

    /** Fails with its argument as the exception's message: the Monitor must show it as text. */
    @SkailFunction(retryCount = 0)
    public void ecoar(String texto) {
        falharCom(texto);
    }

    @SkailCommand(retryCount = 0)
    public void falharCom(String texto) {
        throw new IllegalStateException(texto);
    }

    /** S7: waits for an approval fired over HTTP. */
    @SkailFunction
    public String esperarAprovacao(String id) {
        return "approved by " + dev.skail.Skail.waitForEvent("aprovacao", String.class);
    }

    /** S15: records the key and the attempt each run of the command sees. */
    @SkailFunction
    public void chaves(String id) throws GatewayException {
        registrarChave("first");
        cobrarComChave(id);
        registrarChave("third");
    }

    @SkailCommand
    public void registrarChave(String label) {
        SkailContext context = SkailContext.current();
        this.effects.note(context.taskId(), label + " " + context.idempotencyKey() + " attempt " + context.attempt());
    }

    @SkailCommand(retryCount = 3)
    public void cobrarComChave(String id) throws GatewayException {
        SkailContext context = SkailContext.current();
        this.effects.note(context.taskId(), "charge " + context.idempotencyKey() + " attempt " + context.attempt());
        if (ran("cobrarComChave") <= failuresWanted(id)) {
            throw new GatewayException("timeout");
        }
    }

    /** A command whose result cannot be recorded: it ran, so it must not run again. */
    @SkailFunction
    public void guardarOpaco(String id) {
        devolverOpaco(id);
    }

    @SkailCommand
    public Object devolverOpaco(String id) {
        ran("devolverOpaco");
        return new Opaco();
    }

    /** Like a lazy proxy whose session is closed: reading it throws. */
    public static class Opaco {

        public String getValor() {
            throw new IllegalStateException("could not initialize proxy - no session");
        }
    }

    /** S16: a command that calls a command. */
    @SkailFunction
    public void aninhar(String id) {
        comandoQueChamaComando(id);
    }

    @SkailCommand
    public void comandoQueChamaComando(String id) {
        ran("comandoQueChamaComando");
        reservarEstoque(id);
    }

    /** S10: the branch depends on how many times the body ran, as a wall-clock read would. */
    @SkailFunction(retryCount = 0)
    public void divergir(String id) {
        int delivery = ran("divergir-body");
        if (delivery == 1) {
            passoA(id);
        }
        else {
            passoC(id);
        }
        passoB(id);
    }

    /** S10: user code that catches everything cannot hide the divergence. */
    @SkailFunction(retryCount = 0)
    public String divergirEsconder(String id) {
        int delivery = ran("divergirEsconder-body");
        try {
            if (delivery == 1) {
                passoA(id);
            }
            else {
                passoC(id);
            }
        }
        catch (Exception ex) {
            this.effects.note(taskId(), "hid " + ex.getClass().getSimpleName());
        }
        passoB(id);
        return "DONE";
    }

    /** S10: on replay the function ends before the steps it recorded. */
    @SkailFunction(retryCount = 0)
    public void encurtar(String id) {
        if (ran("encurtar-body") > 1) {
            return;
        }
        passoA(id);
        passoB(id);
    }

    @SkailCommand
    public void passoA(String id) {
        ran("passoA");
    }

    @SkailCommand
    public void passoB(String id) {
        if (ran("passoB") == 1) {
            throw new IllegalStateException("first run of passoB fails");
        }
    }

    @SkailCommand
    public void passoC(String id) {
        ran("passoC");
    }
}
