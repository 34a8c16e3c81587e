package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.platform.StoreDeadline;
import dev.skail.platform.StoreUnavailableException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A shutdown while the store is away gives the leases still held back within one deadline for them all (2 s), not one
 * wait per lease: the first release that finds the store away ends the attempt, and the other leases expire on their
 * own. Before, a shutdown holding three leases waited for the store three times, each as long as the store let it.
 */
class ShutdownDuringOutageTests {

    /** Set by the test: the store's releases wait as long as their deadline allows (3 s without one), then fail. */
    static volatile boolean storeAway;

    static final AtomicInteger releasesTried = new AtomicInteger();

    @Test
    void leasesHeldAtShutdownAreGivenBackWithinOneDeadline() throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).properties(
                "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                "skail.worker.concurrency=3", "skail.worker.poll-interval=1h", "skail.worker.shutdown-timeout=100ms",
                "spring.main.web-application-type=none")
            .run();
        Pedidos pedidos = context.getBean(Pedidos.class);
        try {
            SkailClient client = context.getBean(SkailClient.class);
            for (String pedido : List.of("pedido-1", "pedido-2", "pedido-3")) {
                client.trigger(pedido, Pedidos.class, (p) -> p.processarPedido(pedido, new BigDecimal("10.50")));
            }
            // three deliveries hold their leases, in commands that outlast the shutdown's wait for them
            assertThat(pedidos.charging.await(10, TimeUnit.SECONDS)).isTrue();

            storeAway = true;
            long start = System.nanoTime();
            context.close();
            long stopMillis = (System.nanoTime() - start) / 1_000_000;

            // one release tried, cut at the deadline (2 s); before: three, each waiting 3 s
            assertThat(releasesTried.get()).isEqualTo(1);
            assertThat(stopMillis).isLessThan(4_000);
        }
        finally {
            storeAway = false;
            pedidos.mayFinish.countDown();
            context.close();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Pedidos.class)
    static class App {

        @Bean
        static BeanPostProcessor storeThatGoesAway() {
            CountDownLatch never = new CountDownLatch(1);
            return StoreInterception.around((call) -> {
                if (storeAway && call.name().equals("release")) {
                    releasesTried.incrementAndGet();
                    long wait = StoreDeadline.isSet() ? StoreDeadline.remainingMillis() : 3_000;
                    never.await(wait, TimeUnit.MILLISECONDS);
                    throw new StoreUnavailableException("skail store unreachable (test)",
                            new java.net.ConnectException("connection refused (test)"));
                }
                return call.proceed();
            });
        }
    }

    public static class Pedidos {

        final CountDownLatch charging = new CountDownLatch(3);

        final CountDownLatch mayFinish = new CountDownLatch(1);

        @SkailFunction
        public BigDecimal processarPedido(String pedido, BigDecimal valor) {
            return cobrarCartao(pedido, valor);
        }

        /** Charges, and does not stop for the shutdown's interruption until the test lets it. */
        @SkailCommand
        public BigDecimal cobrarCartao(String pedido, BigDecimal valor) {
            this.charging.countDown();
            boolean interrupted = false;
            while (true) {
                try {
                    if (this.mayFinish.await(30, TimeUnit.SECONDS)) {
                        break;
                    }
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return valor;
        }
    }
}
