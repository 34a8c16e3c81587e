package dev.skail.replay;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
import dev.skail.SkailStep;
import dev.skail.runtime.SkailWorker;
import dev.skail.test.SkailAwait;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** Shutdown stops a running function at its next step boundary and hands the execution back. */
class GracefulShutdownTests {

    @TempDir
    Path store;

    @Test
    void shutdownLetsTheRunningCommandFinishThenStopsBeforeTheNextStepAndTheRestartGoesOn() throws Exception {
        Pedido.reset();
        try (ConfigurableApplicationContext first = start()) {
            first.getBean(SkailClient.class).trigger("processarPedido", "pedido-20", "pedido-20");
            assertThat(Pedido.reserving.await(20, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<Void> shutdown = CompletableFuture.runAsync(first::close);
            Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> !first.getBean(SkailWorker.class).isRunning());
            Pedido.release.countDown(); // the command running at shutdown ends, and is recorded
            shutdown.get(20, TimeUnit.SECONDS);
        }
        assertThat(Pedido.runs("reservarEstoque")).isEqualTo(1);
        assertThat(Pedido.runs("cobrarCartao")).isZero();

        try (ConfigurableApplicationContext second = start()) {
            SkailClient client = second.getBean(SkailClient.class);
            SkailExecution done = new SkailAwait(client, Duration.ofSeconds(20)).status("pedido-20",
                    ExecutionStatus.COMPLETED);
            assertThat(done.result(String.class)).isEqualTo("cobrado");
            assertThat(client.history("pedido-20").steps()).extracting(SkailStep::name)
                .containsExactly("reservarEstoque", "cobrarCartao");
            assertThat(client.history("pedido-20").functionAttempts()).isEmpty();
        }
        assertThat(Pedido.runs("reservarEstoque")).isEqualTo(1);
        assertThat(Pedido.runs("cobrarCartao")).isEqualTo(1);
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(App.class).properties("skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:file:" + this.store.resolve("skail") + ";FILE_LOCK=FS;WRITE_DELAY=0",
                "skail.worker.poll-interval=20ms", "spring.main.web-application-type=none")
            .run();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Pedido.class)
    static class App {

    }

    /** Reserves (waiting at the first run until the test lets it go), then charges. */
    public static class Pedido {

        static volatile CountDownLatch reserving = new CountDownLatch(1);

        static volatile CountDownLatch release = new CountDownLatch(1);

        static final java.util.Map<String, AtomicInteger> runs = new java.util.concurrent.ConcurrentHashMap<>();

        static void reset() {
            reserving = new CountDownLatch(1);
            release = new CountDownLatch(1);
            runs.clear();
        }

        static int runs(String what) {
            AtomicInteger count = runs.get(what);
            return (count != null) ? count.get() : 0;
        }

        @SkailFunction
        public String processarPedido(String pedido) {
            reservarEstoque(pedido);
            return cobrarCartao(pedido);
        }

        @SkailCommand
        public void reservarEstoque(String pedido) {
            runs.computeIfAbsent("reservarEstoque", (key) -> new AtomicInteger()).incrementAndGet();
            reserving.countDown();
            try {
                release.await(20, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }

        @SkailCommand
        public String cobrarCartao(String pedido) {
            runs.computeIfAbsent("cobrarCartao", (key) -> new AtomicInteger()).incrementAndGet();
            return "cobrado";
        }
    }
}
