package dev.skail.platform.jdbc;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The store's opening and the background preloading of its classes never run at once. */
class PreloadGateTests {

    private final PreloadGate gate = new PreloadGate();

    @Test
    void aStoreThatOpensFirstKeepsThePreloadingFromEverStarting() {
        assertThat(this.gate.closeOrAwait(Duration.ofSeconds(10), true)).isTrue();
        assertThat(this.gate.open()).isFalse();
        // a second store (another context in the same JVM) does not wait either
        assertThat(this.gate.closeOrAwait(Duration.ofSeconds(10), true)).isTrue();
    }

    @Test
    void aStoreThatOpensWhileThePreloadingRunsWaitsForItsEnd() throws Exception {
        assertThat(this.gate.open()).isTrue();
        CompletableFuture<Boolean> opened = storeWaiting(true);

        this.gate.over();
        assertThat(opened.get(10, TimeUnit.SECONDS)).isTrue();
        // the preloading runs once
        assertThat(this.gate.open()).isFalse();
    }

    @Test
    void aPostgreSqlStoreWaitsOnlyForThePoolsClassesNotForH2s() throws Exception {
        assertThat(this.gate.open()).isTrue();
        CompletableFuture<Boolean> opened = storeWaiting(false);

        // the pool's classes loaded: the preloading goes on with H2's in-memory database, which this store never uses
        this.gate.poolReady();
        assertThat(opened.get(10, TimeUnit.SECONDS)).isTrue();
        // an H2 store would still wait for the rest
        assertThat(this.gate.closeOrAwait(Duration.ofMillis(50), true)).isFalse();
        this.gate.over();
        assertThat(this.gate.closeOrAwait(Duration.ofSeconds(10), true)).isTrue();
    }

    @Test
    void aPreloadingThatDoesNotEndHoldsTheStoreOnlySoLong() {
        assertThat(this.gate.open()).isTrue();
        assertThat(this.gate.closeOrAwait(Duration.ofMillis(50), true)).isFalse();
    }

    /**
     * A store (of H2 or not) opening on a thread of its own while the preloading runs, once that thread waits at the
     * gate: not opened yet.
     */
    private CompletableFuture<Boolean> storeWaiting(boolean h2) {
        Thread[] store = new Thread[1];
        CompletableFuture<Boolean> opened = CompletableFuture.supplyAsync(() -> {
            store[0] = Thread.currentThread();
            return this.gate.closeOrAwait(Duration.ofSeconds(30), h2);
        });
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> store[0] != null && store[0].getState() == Thread.State.TIMED_WAITING);
        assertThat(opened).isNotDone();
        return opened;
    }
}
