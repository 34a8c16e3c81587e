package dev.skail;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Triggers and queries executions from application code, e.g. a controller. Triggering is idempotent on the id:
 * repeating a trigger returns the existing execution; repeating it with other arguments is a
 * {@link SkailConflictException}. Every method throws {@link SkailUnavailableException} when the store cannot be
 * reached within {@code skail.store.request-timeout}: nothing of the call was recorded, try again later.
 */
public interface SkailClient {

    /**
     * Starts the function of this workload named {@code function} under the id {@code taskId}.
     * <p>
     * The handle reads the result with the function's declared return type; {@code R} is what the caller's variable
     * says it is ({@code SkailHandle<Pedido> h = client.trigger("criarPedido", id, dados)}), unchecked: name the
     * function's return type (or {@code Object}). {@link SkailHandle#execution()} is the execution as triggered.
     * @param <R> the function's return type
     * @return a handle on the execution, to wait for its result
     * @throws SkailNotFoundException if no function has that name
     * @throws SkailInvalidRequestException if the id or the arguments do not fit
     * @throws SkailConflictException if the id exists with another function or other arguments
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    <R> SkailHandle<R> trigger(String function, String taskId, Object... arguments);

    /**
     * Starts a function by calling it on a stand-in of its bean, so the call is checked by the compiler and
     * survives renames: {@code client.trigger("pedido-1", Pedidos.class, p -> p.processarPedido(id))}.
     * The call records the method and arguments and returns a default value; it runs nothing.
     * <p>
     * The handle reads the result with the called method's declared return type:
     * {@code SkailHandle<Recibo> h = client.trigger("pedido-1", Pedidos.class, p -> p.pagar(id))}; {@code R} is
     * inferred from the caller's variable, unchecked (as with {@link #trigger(String, String, Object...)}).
     * @param <R> the called function's return type
     * @return a handle on the execution, to wait for its result
     */
    <T, R> SkailHandle<R> trigger(String taskId, Class<T> beanType, Consumer<T> call);

    /**
     * A handle on an existing execution, e.g. in another request than the one that triggered it; its result is read
     * as {@code resultType}.
     * @throws SkailNotFoundException if there is no execution with this id
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    <R> SkailHandle<R> handle(String taskId, Class<R> resultType);

    /**
     * A handle on an existing execution whose result is read with its function's declared return type (as
     * {@code Object} when this runtime does not know the function).
     * @throws SkailNotFoundException if there is no execution with this id
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    SkailHandle<Object> handle(String taskId);

    /**
     * Fires an event at an execution: kept until the function waits for it ({@link Skail#waitForEvent}), consumed in
     * order of arrival.
     * @param payload the event's payload, written as JSON (may be {@code null})
     * @throws SkailNotFoundException if there is no execution with this id
     * @throws SkailConflictException if the execution has ended
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    void fire(String taskId, String event, @Nullable Object payload);

    /**
     * Fires an event at most once per {@code idempotencyKey}: a call repeated with the same key (a retry after a
     * {@link SkailUnavailableException}, a message redelivered by a broker) keeps no second event, as the HTTP API's
     * {@code Idempotency-Key} header does.
     * @param payload the event's payload, written as JSON (may be {@code null})
     * @param idempotencyKey 1 to 200 characters, the same for every repeat of this one event
     * @throws SkailNotFoundException if there is no execution with this id
     * @throws SkailConflictException if the execution has ended
     * @throws SkailInvalidRequestException if the key is blank or longer than 200 characters
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    void fire(String taskId, String event, @Nullable Object payload, String idempotencyKey);

    /**
     * Resumes a FAILED execution by hand, once its cause is fixed: commands already recorded do not run again; the
     * failed command and the function start their attempts over.
     * @throws SkailNotFoundException if there is no execution with this id
     * @throws SkailConflictException if the execution is not FAILED
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    SkailExecution resume(String taskId);

    /**
     * Cancels an execution: a waiting (or not yet started) one at once, a running one at its next step boundary. The
     * function sees {@link SkailCancelledException} at that step and may compensate with commands (they run and are
     * recorded); when it ends, the execution is {@link ExecutionStatus#CANCELLED}. Its children that have not ended
     * are cancelled too. Repeating the request while it is being cancelled is harmless.
     * @return the execution as it stands once the request is kept
     * @throws SkailNotFoundException if there is no execution with this id
     * @throws SkailConflictException if the execution has ended
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    SkailExecution cancel(String taskId);

    /** The execution with this id, if any. */
    Optional<SkailExecution> find(String taskId);

    /**
     * The execution with its recorded steps and attempts.
     * @throws SkailNotFoundException if there is no execution with this id
     */
    SkailHistory history(String taskId);

    /**
     * The executions the query matches, newest first (by creation time, then id), one page of them: e.g. the FAILED
     * executions of {@code processarPedido} created today, or every execution tagged {@code pedido=...}. Every
     * execution of the store is searched, whatever its workload version.
     * @param query the filters and the page
     * @return the page
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    SkailPage search(SkailQuery query);

    /**
     * How many executions the query matches, per status, leaving the query's own statuses aside (so that a screen
     * filtered on FAILED can still show how many are RUNNING). Every status is in the map, with 0 when none matches.
     * @param query the filters (its statuses, page and size are not used)
     * @return the counts, in the order of {@link ExecutionStatus}
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    Map<ExecutionStatus, Long> count(SkailQuery query);

    /**
     * The workload's schedules ({@link SkailSchedule}) with their next and latest ticks. The executions a schedule
     * starts are ordinary executions, with the id {@code {function}:{tick}}: {@link #find(String)} reads them.
     * @throws SkailUnavailableException if the store cannot be reached in time
     */
    List<SkailScheduleInfo> schedules();
}
