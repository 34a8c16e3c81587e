package dev.skail.search;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailPage;
import dev.skail.SkailQuery;
import dev.skail.test.SkailAwait;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tags (by {@code @SkailTag} and by {@code SkailContext.tag}) and {@link SkailClient#search}/{@link SkailClient#count}:
 * each filter, their combinations, pages and counts. Each test works on executions of its own (a {@code lote} tag or
 * an order id of its own), so the tests share one application.
 */
@SpringBootTest(classes = SearchApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-search-${random.uuid};DB_CLOSE_DELAY=-1",
                "skail.worker.poll-interval=20ms", "skail.http.max-bulk=3" })
class SearchTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    PedidosBuscaveis pedidos;

    @Test
    void parametersTaggedWithSkailTagMakeTheExecutionSearchableAsSoonAsTheTriggerReturns() {
        Pedido pedido = pedido("c-1042", "1234.50");

        SkailExecution triggered = this.client.trigger("processarPedido", "tag-annotation-1", pedido.id(), Canal.SITE,
                pedido).execution();

        assertThat(triggered.tags()).containsEntry("pedido", List.of(pedido.id().toString()))
            .containsEntry("canal", List.of("SITE"));
        // no wait: the tags are written with the execution
        assertThat(ids(this.client.search(SkailQuery.all().withTag("pedido", pedido.id().toString()))))
            .containsExactly("tag-annotation-1");
        assertThat(ids(this.client.search(SkailQuery.all().withTag("pedido", pedido.id().toString())
            .withTag("canal", "LOJA")))).isEmpty();
    }

    @Test
    void tagsFromTheContextAreKeptOnceThoughReplaysTagAgainAndAChildIsTaggedByItsOwnParameters() {
        Pedido pedido = pedido("c-2077", "1234.50");
        String id = "tag-context-1";
        this.client.trigger("processarPedido", id, pedido.id(), Canal.APLICATIVO, pedido);
        this.await.status(id, ExecutionStatus.WAITING);

        assertThat(this.client.find(id).orElseThrow().tags()).containsEntry("cliente", List.of("c-2077"))
            .containsEntry("valor", List.of("1234.5"))
            .doesNotContainKey("nota");

        this.client.fire(id, "pagamento", "PIX");
        SkailExecution done = this.await.status(id, ExecutionStatus.COMPLETED);

        assertThat(this.pedidos.runs(id)).as("the function ran again after the payment (a replay)")
            .isGreaterThanOrEqualTo(2);
        String nota = "NF-" + pedido.id().toString().substring(0, 8);
        assertThat(done.result(String.class)).isEqualTo("PIX " + nota);
        assertThat(done.tags()).isEqualTo(Map.of("pedido", List.of(pedido.id().toString()), "canal",
                List.of("APLICATIVO"), "cliente", List.of("c-2077"), "valor", List.of("1234.5"), "nota",
                List.of(nota)));
        // the order and its invoice (the child execution) are found by the order's id
        SkailPage byPedido = this.client.search(SkailQuery.all().withTag("pedido", pedido.id().toString()));
        assertThat(ids(byPedido)).containsExactlyInAnyOrder(id, id + ":2");
        SkailExecution child = this.client.find(id + ":2").orElseThrow();
        assertThat(child.tags()).isEqualTo(Map.of("pedido", List.of(pedido.id().toString()), "valor",
                List.of("1234.5")));
        assertThat(ids(this.client.search(SkailQuery.all().withTag("nota", nota)))).containsExactly(id);
        assertThat(this.client.history(id).execution().tags()).containsEntry("nota", List.of(nota));
    }

    @Test
    void aTaggedArgumentTheStoreWouldKeepAsAnotherTextRefusesTheTriggerAndCreatesNothing() {
        // a lot name cut in the middle of an emoji: UTF-8, the store's text, has no form for half a pair
        assertThatExceptionOfType(SkailInvalidRequestException.class)
            .isThrownBy(() -> this.client.trigger("cobrarLote", "tag-lone-1", "lote-\uD83D"))
            .withMessageContaining("tag 'lote'")
            .withMessageContaining("half a surrogate pair (one at index 5)");
        assertThat(this.client.find("tag-lone-1")).isEmpty();
        // the whole emoji is text like any other
        assertThat(this.client.trigger("cobrarLote", "tag-emoji-1", "lote-\uD83D\uDE00").execution().tags())
            .containsEntry("lote", List.of("lote-\uD83D\uDE00"));
    }

    @Test
    void theContextRefusesKeysAndValuesATagCannotHave() {
        this.client.trigger("tagsInvalidas", "tag-invalid-1", "lote-invalid");

        SkailExecution done = this.await.status("tag-invalid-1", ExecutionStatus.COMPLETED);

        @SuppressWarnings("unchecked")
        List<String> refused = done.result(List.class);
        assertThat(refused).hasSize(7).allSatisfy((message) -> assertThat(message).startsWith("Invalid tag")
            .doesNotStartWith("accepted"));
        assertThat(refused.get(0)).contains("letters, digits");
        assertThat(refused.get(1)).contains("must not be blank");
        assertThat(refused.get(3)).contains("at most 200 characters");
        assertThat(refused.get(4)).contains("1 to 64");
        assertThat(refused.get(5)).contains("not a dev.skail.search.Pedido");
        assertThat(refused.get(6)).contains("without half a surrogate pair (one at index 7");
        assertThat(done.tags()).isEqualTo(Map.of("lote", List.of("lote-invalid")));
    }

    @Test
    void eachFilterAndTheirCombinationsFindTheirExecutionsNewestFirst() {
        String lote = "lote-filters";
        Instant start = this.clock.instant();
        this.client.trigger("aguardarAprovacao", "filters-a", lote, 1);
        this.clock.advance(Duration.ofMinutes(1));
        this.client.trigger("registrar", "filters-b", lote, 2L);
        this.clock.advance(Duration.ofMinutes(1));
        this.client.trigger("aguardarAprovacao", "filters-c", lote, 3);
        this.clock.advance(Duration.ofMinutes(1));
        Instant afterC = this.clock.instant();
        this.client.trigger("registrar", "filters-d", lote, 4L);
        this.await.status("filters-a", ExecutionStatus.WAITING);
        this.await.status("filters-b", ExecutionStatus.COMPLETED);
        this.await.status("filters-c", ExecutionStatus.WAITING);
        this.await.status("filters-d", ExecutionStatus.COMPLETED);
        // a approved an hour later: it changed last
        this.clock.advance(Duration.ofHours(1));
        Instant approval = this.clock.instant();
        this.client.fire("filters-a", "aprovacao", "ok");
        this.await.status("filters-a", ExecutionStatus.COMPLETED);
        SkailQuery mine = SkailQuery.all().withTag("lote", lote);

        assertThat(ids(this.client.search(mine))).containsExactly("filters-d", "filters-c", "filters-b", "filters-a");
        assertThat(ids(this.client.search(mine.withFunction("registrar")))).containsExactly("filters-d", "filters-b");
        assertThat(ids(this.client.search(mine.withStatuses(ExecutionStatus.WAITING)))).containsExactly("filters-c");
        assertThat(ids(this.client.search(mine.withStatuses(ExecutionStatus.WAITING, ExecutionStatus.COMPLETED))))
            .containsExactly("filters-d", "filters-c", "filters-b", "filters-a");
        // created: [from, to), the bound at the very instant of a creation included as from, excluded as to
        Instant createdB = this.client.find("filters-b").orElseThrow().createdAt();
        assertThat(ids(this.client.search(mine.withCreatedFrom(createdB).withCreatedTo(afterC))))
            .containsExactly("filters-c", "filters-b");
        assertThat(ids(this.client.search(mine.withCreatedTo(createdB)))).containsExactly("filters-a");
        assertThat(ids(this.client.search(mine.withCreatedFrom(start)))).hasSize(4);
        // updated: only a changed after the approval
        assertThat(ids(this.client.search(mine.withUpdatedFrom(approval)))).containsExactly("filters-a");
        assertThat(ids(this.client.search(mine.withUpdatedTo(approval)))).containsExactly("filters-d", "filters-c",
                "filters-b");
        // combinations
        assertThat(ids(this.client.search(mine.withFunction("aguardarAprovacao")
            .withStatuses(ExecutionStatus.COMPLETED).withUpdatedFrom(approval)))).containsExactly("filters-a");
        assertThat(ids(this.client.search(mine.withTag("sequencia", "3")))).containsExactly("filters-c");
        assertThat(ids(this.client.search(mine.withTag("sequencia", "3").withFunction("registrar")))).isEmpty();
        assertThat(ids(this.client.search(SkailQuery.all().withIdContaining("filters-")
            .withFunction("registrar")))).containsExactly("filters-d", "filters-b");
        assertThat(ids(this.client.search(mine.withIdContaining("ers-c")))).containsExactly("filters-c");
    }

    @Test
    void pagesComeNewestFirstAndSayWhetherAnotherFollows() {
        String lote = "lote-pages";
        for (int i = 1; i <= 5; i++) {
            this.client.trigger("registrar", "pages-" + i, lote, (long) i);
            this.clock.advance(Duration.ofSeconds(1));
        }
        SkailQuery query = SkailQuery.all().withTag("lote", lote).withSize(2);

        SkailPage first = this.client.search(query);
        SkailPage second = this.client.search(query.withPage(1));
        SkailPage third = this.client.search(query.withPage(2));
        SkailPage beyond = this.client.search(query.withPage(3));

        assertThat(ids(first)).containsExactly("pages-5", "pages-4");
        assertThat(first.hasMore()).isTrue();
        assertThat(ids(second)).containsExactly("pages-3", "pages-2");
        assertThat(second.hasMore()).isTrue();
        assertThat(ids(third)).containsExactly("pages-1");
        assertThat(third.hasMore()).isFalse();
        assertThat(third.page()).isEqualTo(2);
        assertThat(third.size()).isEqualTo(2);
        assertThat(beyond.items()).isEmpty();
        assertThat(beyond.hasMore()).isFalse();
    }

    @Test
    void countsAreByStatusWithEveryStatusThereAndTheStatusFilterLeftAside() {
        String lote = "lote-counts";
        this.client.trigger("aguardarAprovacao", "counts-1", lote, 1);
        this.client.trigger("aguardarAprovacao", "counts-2", lote, 2);
        this.client.trigger("registrar", "counts-3", lote, 3L);
        this.await.status("counts-1", ExecutionStatus.WAITING);
        this.await.status("counts-2", ExecutionStatus.WAITING);
        this.await.status("counts-3", ExecutionStatus.COMPLETED);

        Map<ExecutionStatus, Long> counts = this.client.count(SkailQuery.all().withTag("lote", lote)
            .withStatuses(ExecutionStatus.FAILED));
        Map<ExecutionStatus, Long> ofFunction = this.client.count(SkailQuery.all().withTag("lote", lote)
            .withFunction("registrar"));

        assertThat(counts).containsExactly(Map.entry(ExecutionStatus.PENDING, 0L),
                Map.entry(ExecutionStatus.RUNNING, 0L), Map.entry(ExecutionStatus.WAITING, 2L),
                Map.entry(ExecutionStatus.COMPLETED, 1L), Map.entry(ExecutionStatus.FAILED, 0L),
                Map.entry(ExecutionStatus.CANCELLED, 0L));
        assertThat(ofFunction).containsEntry(ExecutionStatus.COMPLETED, 1L).containsEntry(ExecutionStatus.WAITING, 0L);
    }

    @Test
    void aQueryRefusesWhatItCannotAnswer() {
        assertThatIllegalArgumentException().isThrownBy(() -> SkailQuery.all().withSize(201))
            .withMessageContaining("size must be from 1 to 200");
        assertThatIllegalArgumentException().isThrownBy(() -> SkailQuery.all().withSize(0));
        assertThatIllegalArgumentException().isThrownBy(() -> SkailQuery.all().withPage(-1));
        assertThatIllegalArgumentException().isThrownBy(() -> SkailQuery.all().withTag("com espaço", "x"))
            .withMessageContaining("letters, digits");
        assertThatIllegalArgumentException().isThrownBy(() -> SkailQuery.all().withTag("pedido", ""))
            .withMessageContaining("must not be blank");
        assertThatIllegalArgumentException().isThrownBy(() -> SkailQuery.all().withTag("nota", "Pedido \uD83D"))
            .withMessageContaining("half a surrogate pair");
        assertThat(SkailQuery.all().withTag("pedido", "p-1").withTag("pedido", "p-1").tags()).hasSize(1);
        assertThat(SkailQuery.all().withFunction("  ").function()).isNull();
    }

    private static List<String> ids(SkailPage page) {
        return page.items().stream().map(SkailExecution::taskId).toList();
    }

    private static Pedido pedido(String cliente, String valor) {
        return new Pedido(UUID.randomUUID(), cliente, new BigDecimal(valor),
                OffsetDateTime.of(2025, 3, 14, 9, 30, 0, 0, ZoneOffset.ofHours(-3)),
                List.of(new Pedido.Item("SKU-CAFE-500G", 2, new BigDecimal("617.25"))));
    }
}
