package dev.skail.search;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailQuery;
import dev.skail.platform.ExecutionStore;
import dev.skail.runtime.SkailRetention;
import dev.skail.test.SkailAwait;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retention ({@code skail.retention.ended-after}) is the one mechanism that deletes executions: an ended execution
 * goes with its tags, so a search by them no longer finds it; one still going keeps its own.
 */
@SpringBootTest(classes = SearchApp.class,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-search-retention-${random.uuid};DB_CLOSE_DELAY=-1",
                "skail.worker.poll-interval=20ms", "skail.retention.ended-after=30d",
                "skail.retention.interval=1000d" })
class SearchRetentionTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    SkailRetention retention;

    @Autowired
    ExecutionStore store;

    @Test
    void anEndedExecutionIsDeletedWithItsTagsAfterTheRetentionPeriod() {
        this.client.trigger("registrar", "retention-ended", "lote-retencao", 1L);
        this.client.trigger("aguardarAprovacao", "retention-waiting", "lote-retencao", 2);
        this.await.status("retention-ended", ExecutionStatus.COMPLETED);
        this.await.status("retention-waiting", ExecutionStatus.WAITING);
        SkailQuery lote = SkailQuery.all().withTag("lote", "lote-retencao");
        assertThat(this.client.search(lote).items()).hasSize(2);

        this.clock.advance(Duration.ofDays(31));
        int deleted = this.retention.deleteEnded();

        assertThat(deleted).isEqualTo(1);
        assertThat(this.client.find("retention-ended")).isEmpty();
        assertThat(this.client.search(lote).items()).extracting(SkailExecution::taskId)
            .containsExactly("retention-waiting");
        assertThat(this.client.count(lote)).containsEntry(ExecutionStatus.COMPLETED, 0L)
            .containsEntry(ExecutionStatus.WAITING, 1L);
        assertThat(this.store.tags(List.of("retention-ended", "retention-waiting")))
            .isEqualTo(Map.of("retention-waiting", List.of(new dev.skail.platform.Tag("lote", "lote-retencao"),
                    new dev.skail.platform.Tag("sequencia", "2"))));
    }
}
