package dev.skail.availability;

import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10, item 5: the default embedded store on a file system that fills up (a small tmpfs, mounted by the test, which
 * runs as root). Requests answer 503 saying the store's disk is full, health is DOWN saying so, and once space is
 * freed the store works again without a restart, every execution accepted before completing.
 */
class FullDiskTests {

    private Path mount;

    private ConfigurableApplicationContext app;

    @BeforeEach
    void mountSmallFileSystem() throws IOException {
        this.mount = Files.createTempDirectory("skail-full-disk-");
        // room for the store's files and their next extension once the filler is gone: on 3 MB, the store's two files
        // took 2 MiB and the filler's deletion left 1,044,480 bytes, less than the 1 MiB by which the log grows, so
        // a run whose full-disk triggers had filled the log's extent stayed full (a failure seen once in CI)
        run("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", this.mount.toString());
    }

    @AfterEach
    void unmount() {
        try {
            if (this.app != null) {
                this.app.close();
            }
        }
        finally {
            run("umount", this.mount.toString());
        }
    }

    @Test
    void aFullDiskIsNamedAndTheStoreRecoversWithoutARestartOnceSpaceIsFreed() throws IOException {
        this.app = OutageApp.start("skail.store.directory=" + this.mount.resolve("store"));
        SkailClient client = this.app.getBean(SkailClient.class);
        List<String> accepted = List.of("disco-1", "disco-2", "disco-3");
        for (String id : accepted) {
            assertThat(OutageApp.post(this.app, "/trigger/vendas/v1.0.0/aprovacao/" + id, "[\"" + id + "\"]")
                .statusCode()).isEqualTo(202);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(accepted)
            .allSatisfy((id) -> assertThat(client.find(id).orElseThrow().status()).isEqualTo(ExecutionStatus.WAITING)));

        Path filler = this.mount.resolve("filler");
        fill(filler);

        // triggers until one finds no space: the store's file keeps up to 1.5 MiB of zeros ahead of its writes, which
        // the first triggers may still fill (each of them accepted, durably); then 503 that says the disk is full,
        // and nothing created
        String big = "x".repeat(600_000);
        List<String> acceptedOnAFullDisk = new java.util.ArrayList<>();
        HttpResponse<String> trigger = null;
        String refused = null;
        for (int i = 1; i <= 5 && refused == null; i++) {
            trigger = OutageApp.post(this.app, "/trigger/vendas/v1.0.0/aprovacao/cheio-" + i, "[\"" + big + "\"]");
            if (trigger.statusCode() == 202) {
                acceptedOnAFullDisk.add("cheio-" + i);
            }
            else {
                refused = "cheio-" + i;
            }
        }
        assertThat(refused).as("a trigger refused once the disk is full").isNotNull();
        assertThat(trigger.statusCode()).isEqualTo(503);
        assertThat(trigger.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(trigger.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(OutageApp.json(trigger).path("detail").asString()).contains("the store's disk is full");
        OutageApp.Health health = OutageApp.health(this.app);
        assertThat(health.millis()).isLessThan(1000);
        assertThat(health.status()).isEqualTo("DOWN");
        assertThat(health.error()).contains("the store's disk is full");

        Files.delete(filler);
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            OutageApp.Health back = OutageApp.health(this.app);
            assertThat(back.status()).as("health (%s), %d bytes free", back.error(),
                    Files.getFileStore(this.mount).getUsableSpace()).isEqualTo("UP");
            assertThat(back.millis()).isLessThan(1000);
        });
        assertThat(client.find(refused)).isEmpty();
        for (String id : acceptedOnAFullDisk) {
            assertThat(client.find(id)).isPresent();
        }
        for (String id : accepted) {
            assertThat(OutageApp.post(this.app, "/api/v1/fire/vendas/v1.0.0/" + id + "/aprovado", "\"sim\"")
                .statusCode()).isEqualTo(202);
        }
        assertThat(OutageApp.post(this.app, "/trigger/vendas/v1.0.0/pedido/depois", "[\"depois\"]").statusCode())
            .isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            for (String id : accepted) {
                assertThat(client.find(id).orElseThrow().result()).isEqualTo("\"confirmado-" + id + ":sim\"");
            }
            assertThat(client.find("depois").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
        });
    }

    /** Writes until the file system has no space left. */
    private static void fill(Path filler) {
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
            }
        }
        catch (IOException expected) {
            assertThat(expected.getMessage()).contains("No space left");
        }
    }

    private static void run(String... command) {
        try {
            Process process = new ProcessBuilder(command).inheritIO().start();
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed");
            }
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
