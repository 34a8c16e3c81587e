package dev.skail.results;

import java.math.BigDecimal;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailExecutionFailedException;
import dev.skail.SkailHandle;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailTimeoutException;
import dev.skail.results.ResultsApp.Pagamentos;
import dev.skail.results.ResultsApp.Recibo;
import dev.skail.runtime.SkailRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Results for callers: a handle from either form of trigger, or by id again, reads the function's result with its
 * declared type; a failure is a documented exception with the recorded error; waiting is signalled, not polled (the
 * safety-net recheck is an hour here); the HTTP API's {@code ?wait=}.
 */
@SpringBootTest(classes = ResultsApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1",
                "skail.retry.backoff.initial=0ms", "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms",
                "skail.http.max-wait=1500ms" })
class ResultsTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailRuntime runtime;

    @LocalServerPort
    int port;

    @BeforeEach
    void noSafetyNet() {
        // only the signal can end a wait within these tests
        this.runtime.setResultRecheckInterval(Duration.ofHours(1));
    }

    @Test
    void aHandleGivesTheResultOfACompletedFunctionWithItsDeclaredType() {
        SkailHandle<Recibo> handle = this.client.trigger("pay-1", Pagamentos.class,
                (p) -> p.pagar("pedido-1", new BigDecimal("150.00")));
        assertThat(handle.taskId()).isEqualTo("pay-1");
        // created, not ended: RUNNING when the worker of this process had a free slot and took it at once, PENDING when
        // a claim held it longer than a trigger waits (LocalStartTests holds the worker still to tell which)
        assertThat(handle.execution().status()).isIn(ExecutionStatus.RUNNING, ExecutionStatus.PENDING);

        Recibo recibo = handle.result(Duration.ofSeconds(10));

        assertThat(recibo).isEqualTo(new Recibo("pedido-1", new BigDecimal("150.50")));
        assertThat(recibo.total().scale()).isEqualTo(2);
        // by name too, and again by id
        SkailHandle<Recibo> byName = this.client.trigger("pagar", "pay-2", "pedido-2", new BigDecimal("1.00"));
        assertThat(byName.result()).isEqualTo(new Recibo("pedido-2", new BigDecimal("1.50")));
        assertThat(this.client.handle("pay-1", Recibo.class).result()).isEqualTo(recibo);
        assertThat(this.client.handle("pay-1").result()).isEqualTo(recibo);
        assertThatThrownBy(() -> this.client.handle("no-such", Recibo.class))
            .isInstanceOf(SkailNotFoundException.class);
    }

    @Test
    void aFailedExecutionIsTheDocumentedExceptionWithTheRecordedError() {
        SkailHandle<Recibo> handle = this.client.trigger("recusar", "refused-1", "sem saldo");

        assertThatThrownBy(() -> handle.result(Duration.ofSeconds(10)))
            .isInstanceOfSatisfying(SkailExecutionFailedException.class, (failed) -> {
                assertThat(failed.taskId()).isEqualTo("refused-1");
                assertThat(failed.error().type()).isEqualTo(IllegalStateException.class.getName());
                assertThat(failed.error().message()).isEqualTo("recusado: sem saldo");
                assertThat(failed.execution().status()).isEqualTo(ExecutionStatus.FAILED);
            });
        assertThat(handle.resultAsync()).failsWithin(Duration.ofSeconds(10))
            .withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(SkailExecutionFailedException.class);
    }

    @Test
    void aWaitThatRunsOutThrowsOrAnswersTheCurrentState() {
        SkailHandle<String> handle = this.client.trigger("esperarAprovacao", "timeout-1", "pedido-9");

        assertThatThrownBy(() -> handle.result(Duration.ofMillis(300)))
            .isInstanceOfSatisfying(SkailTimeoutException.class, (timeout) -> assertThat(
                    timeout.execution().status()).isIn(ExecutionStatus.PENDING, ExecutionStatus.RUNNING,
                            ExecutionStatus.WAITING));
        SkailExecution current = handle.await(Duration.ofMillis(300));
        assertThat(current.status().isTerminal()).isFalse();
    }

    @Test
    void resultAsyncCompletesWhenTheWorkerEndsTheExecution() throws Exception {
        SkailHandle<String> handle = this.client.trigger("esperarAprovacao", "async-1", "pedido-7");
        CompletableFuture<String> result = handle.resultAsync();
        assertThat(result).isNotDone();
        SkailHandle<String> again = this.client.handle("async-1", String.class);
        CompletableFuture<String> second = again.resultAsync();

        this.client.fire("async-1", "aprovado", "ana");

        // the safety net is an hour away: only the worker's signal completes these
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("pedido-7 aprovado por ana");
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("pedido-7 aprovado por ana");
    }

    @Test
    void httpWaitAnswersAsSoonAsTheExecutionHasEnded() throws Exception {
        this.client.trigger("esperarAprovacao", "http-wait-1", "pedido-3");
        long start = System.nanoTime();
        CompletableFuture<HttpResponse<String>> response = get("/api/v1/executions/http-wait-1?wait=10s");
        // the event comes while the request waits
        CompletableFuture.runAsync(() -> this.client.fire("http-wait-1", "aprovado", "bia"),
                CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS));

        HttpResponse<String> answer = response.get(10, TimeUnit.SECONDS);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"status\":\"COMPLETED\"").contains("pedido-3 aprovado por bia");
        assertThat(elapsed).isBetween(500L, 5_000L);
    }

    @Test
    void httpWaitAnswersTheCurrentStateWhenTheWaitRunsOutCappedAtTheMaximum() throws Exception {
        SkailHandle<String> handle = this.client.trigger("esperarAprovacao", "http-wait-2", "pedido-4");
        // the execution is WAITING for its event before the request
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> handle.current().status() == ExecutionStatus.WAITING);
        long start = System.nanoTime();

        // 60s asked, skail.http.max-wait=1500ms here
        HttpResponse<String> answer = get("/api/v1/executions/http-wait-2?wait=60s").get(20, TimeUnit.SECONDS);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"status\":\"WAITING\"");
        assertThat(elapsed).isBetween(1_400L, 8_000L);
        assertThat(get("/api/v1/executions/http-wait-2?wait=soon").get(10, TimeUnit.SECONDS).statusCode())
            .isEqualTo(400);
        assertThat(get("/api/v1/executions/nobody?wait=1s").get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(404);
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        return HttpClient.newHttpClient()
            .sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
    }
}
