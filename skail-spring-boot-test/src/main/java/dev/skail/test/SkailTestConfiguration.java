package dev.skail.test;

import dev.skail.SkailClient;
import dev.skail.autoconfigure.SkailAutoConfiguration;
import dev.skail.runtime.SkailScheduler;
import dev.skail.runtime.SkailWorker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * Import it in a Spring Boot test ({@code @Import(SkailTestConfiguration.class)}) for virtual time: a
 * {@link VirtualClock} becomes skail's clock (the bean {@code skailClock}) and the application's primary
 * {@link java.time.Clock}, so the runtime, its leases and the application's code read time from it,
 * and advancing it wakes the worker and the scheduler at once. Also provides a {@link SkailAwait}.
 * <p>
 * {@link SkailTest} imports it, and gives the test a fresh in-memory store as well.
 */
@Configuration(proxyBeanMethods = false)
public class SkailTestConfiguration {

    @Bean(SkailAutoConfiguration.CLOCK_BEAN_NAME)
    @Primary
    VirtualClock skailClock() {
        return new VirtualClock();
    }

    @Bean
    SkailAwait skailAwait(SkailClient client) {
        return new SkailAwait(client);
    }

    @Bean
    static SmartInitializingSingleton skailVirtualClockWakesWorker(ObjectProvider<VirtualClock> clock,
            ObjectProvider<SkailWorker> worker, ObjectProvider<SkailScheduler> scheduler) {
        return () -> clock.ifAvailable((virtualClock) -> {
            worker.ifAvailable((w) -> virtualClock.onAdvance(w::nudge));
            // the scheduler starts the ticks that became due, and wakes the worker for their executions
            scheduler.ifAvailable((s) -> virtualClock.onAdvance(s::nudge));
        });
    }
}
