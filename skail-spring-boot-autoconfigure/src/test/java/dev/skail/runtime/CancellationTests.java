package dev.skail.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.skail.ExecutionStatus;
import dev.skail.Skail;
import dev.skail.SkailCancelledException;
import dev.skail.SkailCommand;
import dev.skail.SkailConflictException;
import dev.skail.SkailFunction;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailNotFoundException;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.StepRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Cancellation (issue 11, item 2) on the engine: a waiting execution is cancelled at once, a running one at its
 * next step boundary; the function sees {@link SkailCancelledException} at the step where it stands, its
 * compensation runs and is recorded, and the execution ends CANCELLED. The point of cancellation is a recorded
 * {@code CANCEL} step, so replays throw it at the same place. Run on H2 and PostgreSQL by subclasses.
 */
class CancellationTests {

    private static final String PEDIDO = "pedido-7";

    private final Runs runs = new Runs();

    private EngineHarness harness;

    @AfterEach
    void closeHarness() {
        if (this.harness != null) {
            this.harness.close();
        }
    }

    ExecutionStore newStore() {
        return new InMemoryExecutionStore();
    }

    private EngineHarness start(Object flows) {
        this.harness = EngineHarness.of(flows, newStore(), SkailJson.createDefault());
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO);
        return this.harness;
    }

    @Test
    void waitingExecutionIsCancelledAtOnceAtTheStepWhereItWaitsAndCompensates() {
        EngineHarness harness = start(new EsperaPagamento(this.runs));
        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);

        assertThat(harness.runtime.cancel(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);
        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(harness.error(PEDIDO).type()).isEqualTo(SkailCancelledException.class.getName());
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::position, StepRow::kind, StepRow::name, StepRow::status)
            .containsExactly(tuple(0, StepRow.COMMAND, "reservar", StepRow.COMPLETED),
                    tuple(1, StepRow.CANCEL, "cancel", StepRow.FAILED),
                    tuple(2, StepRow.COMMAND, "liberar", StepRow.COMPLETED));
        assertThat(this.runs.count("reservar")).isEqualTo(1);
        assertThat(this.runs.count("liberar")).isEqualTo(1);
        assertThat(this.runs.count("confirmar")).isZero();
        // the event the function waited for can no longer be fired
        assertThatThrownBy(() -> harness.fire(PEDIDO, "pagamento", "ok")).isInstanceOf(SkailConflictException.class);
    }

    @Test
    void waitingOnADelayIsCancelledWithoutWaitingForIt() {
        EngineHarness harness = start(new EsperaPrazo(this.runs));
        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);

        harness.runtime.cancel(PEDIDO);

        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::name)
            .containsExactly(tuple(StepRow.COMMAND, "reservar"), tuple(StepRow.CANCEL, "cancel"),
                    tuple(StepRow.COMMAND, "liberar"));
    }

    @Test
    void pendingExecutionNotStartedYetSeesTheCancellationAtItsFirstStep() {
        EngineHarness harness = start(new EsperaPagamento(this.runs));

        harness.runtime.cancel(PEDIDO);

        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(this.runs.count("reservar")).isZero();
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::name)
            .containsExactly(tuple(StepRow.CANCEL, "cancel"), tuple(StepRow.COMMAND, "liberar"));
    }

    @Test
    void runningExecutionIsCancelledAtItsNextStepBoundaryAndEndsCancelledEvenWhenItReturns() {
        Cobranca flows = new Cobranca(this.runs);
        AtomicReference<ExecutionStatus> statusWhenCancelled = new AtomicReference<>();
        flows.duringCobrar.set(() -> {
            statusWhenCancelled.set(this.harness.execution(PEDIDO).status());
            this.harness.runtime.cancel(PEDIDO);
        });
        EngineHarness harness = start(flows);

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(statusWhenCancelled.get()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(execution.status()).isEqualTo(ExecutionStatus.CANCELLED);
        // the command that was running when the request came finished and is recorded; the next step is not run
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::position, StepRow::kind, StepRow::name, StepRow::status)
            .containsExactly(tuple(0, StepRow.COMMAND, "reservar", StepRow.COMPLETED),
                    tuple(1, StepRow.COMMAND, "cobrar", StepRow.COMPLETED),
                    tuple(2, StepRow.CANCEL, "cancel", StepRow.FAILED),
                    tuple(3, StepRow.COMMAND, "estornar", StepRow.COMPLETED));
        assertThat(this.runs.count("confirmar")).isZero();
        assertThat(this.runs.count("estornar")).isEqualTo(1);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("ESTORNADO");
        assertThat(harness.error(PEDIDO).type()).isEqualTo(SkailCancelledException.class.getName());
    }

    @Test
    void runningExecutionSeesACancelRequestedThroughAnotherInstanceWithinASecond() {
        Cobranca flows = new Cobranca(this.runs);
        flows.duringCobrar.set(() -> {
            // as another instance would: straight to the store, not through this runtime
            this.harness.store.requestCancel(PEDIDO, this.harness.clock.millis());
            sleep(Duration.ofMillis(1100));
        });
        EngineHarness harness = start(flows);

        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::name)
            .containsExactly(tuple(StepRow.COMMAND, "reservar"), tuple(StepRow.COMMAND, "cobrar"),
                    tuple(StepRow.CANCEL, "cancel"), tuple(StepRow.COMMAND, "estornar"));
        assertThat(this.runs.count("confirmar")).isZero();
    }

    @Test
    void replayAfterTheCancelStepThrowsItAtTheSamePlaceAndTheCompensationIsNotLost() {
        Cobranca flows = new Cobranca(this.runs);
        flows.estornoFalhaUmaVez = true;
        flows.duringCobrar.set(() -> this.harness.runtime.cancel(PEDIDO));
        EngineHarness harness = start(flows);

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        // delivery 1: reservar, cobrar, CANCEL, estornar fails (redelivered); delivery 2 replays reservar and cobrar
        // from the history, gets the cancellation again at step 2, and runs estornar again
        assertThat(execution.status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(harness.deliveries()).isEqualTo(2);
        assertThat(this.runs.count("reservar")).isEqualTo(1);
        assertThat(this.runs.count("cobrar")).isEqualTo(1);
        assertThat(this.runs.count("estornar")).isEqualTo(2);
        assertThat(this.runs.count("confirmar")).isZero();
        assertThat(this.runs.count("cancelSeen")).isEqualTo(2);
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::position, StepRow::kind, StepRow::name, StepRow::status)
            .containsExactly(tuple(0, StepRow.COMMAND, "reservar", StepRow.COMPLETED),
                    tuple(1, StepRow.COMMAND, "cobrar", StepRow.COMPLETED),
                    tuple(2, StepRow.CANCEL, "cancel", StepRow.FAILED),
                    tuple(3, StepRow.COMMAND, "estornar", StepRow.COMPLETED));
    }

    @Test
    void cancellingAParentCancelsItsChildAndBothCompensate() {
        EngineHarness harness = start(new PaiEFilho(this.runs));
        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);
        String child = Delivery.childTaskId(PEDIDO, 0);
        assertThat(harness.execution(child).status()).isEqualTo(ExecutionStatus.WAITING);

        harness.runtime.cancel(PEDIDO);
        harness.runUntilQuiet(PEDIDO);

        assertThat(harness.execution(PEDIDO).status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(harness.execution(child).status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(this.runs.count("liberar:filho")).isEqualTo(1);
        assertThat(this.runs.count("liberar:pai")).isEqualTo(1);
        assertThat(harness.steps(child)).extracting(StepRow::kind, StepRow::name)
            .containsExactly(tuple(StepRow.CANCEL, "cancel"), tuple(StepRow.COMMAND, "liberar"));
        // the cancellation took the place of the child's step and keeps its id: the store finds children by it
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::childTaskId)
            .startsWith(tuple(StepRow.CANCEL, child));
    }

    @Test
    void cancellingOnlyTheChildThrowsTheCancellationIntoTheParentAtTheCall() {
        EngineHarness harness = start(new PaiEFilho(this.runs));
        harness.runUntilQuiet(PEDIDO);
        String child = Delivery.childTaskId(PEDIDO, 0);

        harness.runtime.cancel(child);
        harness.runUntilQuiet(PEDIDO);

        assertThat(harness.execution(child).status()).isEqualTo(ExecutionStatus.CANCELLED);
        // the parent was not cancelled: it sees the child's cancellation as the child's outcome, compensates and
        // rethrows it; a cancellation that leaves a function ends it CANCELLED, without retries
        assertThat(this.runs.count("liberar:pai")).isEqualTo(1);
        assertThat(harness.execution(PEDIDO).status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(harness.deliveries()).isEqualTo(4); // parent, child, child cancelled, parent: no retries
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::status)
            .startsWith(tuple(StepRow.CHILD, StepRow.FAILED));
        assertThat(harness.error(PEDIDO).type()).isEqualTo(SkailCancelledException.class.getName());
    }

    @Test
    void cancellingAnEndedExecutionIsAConflictAndAnUnknownOneIsNotFound() {
        EngineHarness harness = start(new EsperaPagamento(this.runs));
        harness.runUntilQuiet(PEDIDO);
        harness.fire(PEDIDO, "pagamento", "ok");
        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.COMPLETED);

        assertThatThrownBy(() -> harness.runtime.cancel(PEDIDO)).isInstanceOf(SkailConflictException.class)
            .hasMessageContaining("has ended (COMPLETED)");
        assertThatThrownBy(() -> harness.runtime.cancel("nao-existe")).isInstanceOf(SkailNotFoundException.class);
        assertThat(harness.execution(PEDIDO).status()).isEqualTo(ExecutionStatus.COMPLETED);
    }

    @Test
    void cancellingACancelledExecutionIsAConflictAndRepeatingARequestWhileItIsCancellingIsHarmless() {
        EngineHarness harness = start(new EsperaPagamento(this.runs));
        harness.runUntilQuiet(PEDIDO);
        harness.runtime.cancel(PEDIDO);
        harness.runtime.cancel(PEDIDO);

        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(harness.steps(PEDIDO)).filteredOn((step) -> StepRow.CANCEL.equals(step.kind())).hasSize(1);
        assertThatThrownBy(() -> harness.runtime.cancel(PEDIDO)).isInstanceOf(SkailConflictException.class)
            .hasMessageContaining("CANCELLED");
    }

    @Test
    void eventNamesReservedForSkailCannotBeFired() {
        EngineHarness harness = start(new EsperaPagamento(this.runs));
        harness.runUntilQuiet(PEDIDO);

        assertThatThrownBy(() -> harness.fire(PEDIDO, ExecutionStore.CANCEL_EVENT, null))
            .isInstanceOf(SkailInvalidRequestException.class);
        assertThat(harness.execution(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    static final class Runs {

        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        int ran(String step) {
            return this.counts.computeIfAbsent(step, (name) -> new AtomicInteger()).incrementAndGet();
        }

        int count(String step) {
            AtomicInteger count = this.counts.get(step);
            return (count != null) ? count.get() : 0;
        }
    }

    /** Reserves stock, waits for the payment; a cancellation releases the stock. */
    public static class EsperaPagamento {

        final Runs runs;

        EsperaPagamento(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction
        public String processarPedido(String pedidoId) {
            try {
                reservar(pedidoId);
                Skail.waitForEvent("pagamento", String.class);
                confirmar(pedidoId);
                return "CONFIRMADO";
            }
            catch (SkailCancelledException ex) {
                liberar(pedidoId);
                throw ex;
            }
        }

        @SkailCommand
        public void reservar(String pedidoId) {
            this.runs.ran("reservar");
        }

        @SkailCommand
        public void confirmar(String pedidoId) {
            this.runs.ran("confirmar");
        }

        @SkailCommand
        public void liberar(String pedidoId) {
            this.runs.ran("liberar");
        }
    }

    /** As {@link EsperaPagamento}, hibernating for a day instead of waiting for an event. */
    public static class EsperaPrazo extends EsperaPagamento {

        EsperaPrazo(Runs runs) {
            super(runs);
        }

        @Override
        @SkailFunction
        public String processarPedido(String pedidoId) {
            try {
                reservar(pedidoId);
                Skail.delay(Duration.ofDays(1));
                confirmar(pedidoId);
                return "CONFIRMADO";
            }
            catch (SkailCancelledException ex) {
                liberar(pedidoId);
                throw ex;
            }
        }
    }

    /** Reserves, charges, confirms; a cancellation refunds the charge and returns. */
    public static class Cobranca {

        final Runs runs;

        final AtomicReference<Runnable> duringCobrar = new AtomicReference<>(() -> {
        });

        boolean estornoFalhaUmaVez;

        Cobranca(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction
        public String processarPedido(String pedidoId) {
            reservar(pedidoId);
            try {
                cobrar(pedidoId);
                confirmar(pedidoId);
                return "CONFIRMADO";
            }
            catch (SkailCancelledException ex) {
                this.runs.ran("cancelSeen");
                estornar(pedidoId);
                return "ESTORNADO";
            }
        }

        @SkailCommand
        public void reservar(String pedidoId) {
            this.runs.ran("reservar");
        }

        @SkailCommand
        public void cobrar(String pedidoId) {
            this.runs.ran("cobrar");
            this.duringCobrar.get().run();
        }

        @SkailCommand
        public void confirmar(String pedidoId) {
            this.runs.ran("confirmar");
        }

        @SkailCommand(retryCount = 1)
        public void estornar(String pedidoId) {
            if (this.runs.ran("estornar") == 1 && this.estornoFalhaUmaVez) {
                throw new IllegalStateException("gateway fora do ar");
            }
        }
    }

    /** A parent waiting for a child that waits for an event; each releases its own part when cancelled. */
    public static class PaiEFilho {

        final Runs runs;

        PaiEFilho(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction
        public String processarPedido(String pedidoId) {
            try {
                return aguardarEntrega(pedidoId);
            }
            catch (SkailCancelledException ex) {
                liberar("pai");
                throw ex;
            }
        }

        @SkailFunction
        public String aguardarEntrega(String pedidoId) {
            try {
                return Skail.waitForEvent("entregue", String.class);
            }
            catch (SkailCancelledException ex) {
                liberar("filho");
                throw ex;
            }
        }

        @SkailCommand
        public void liberar(String quem) {
            this.runs.ran("liberar:" + quem);
        }
    }
}
