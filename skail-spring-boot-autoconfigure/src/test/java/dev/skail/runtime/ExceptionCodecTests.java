package dev.skail.runtime;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;

import javax.management.BadAttributeValueExpException;

import com.acme.banco.CobrancaRecusadaException;
import com.acme.banco.CobrancaRecusadaException.Cobranca;
import com.acme.banco.CobrancaRecusadaException.Motivo;
import com.acme.banco.ContaBloqueadaException;
import com.acme.banco.GatewayIndisponivelException;
import com.acme.banco.SaldoInsuficienteException;
import com.acme.externo.FraudeExternaException;
import com.acme.externo.Gadget;
import dev.skail.SkailError;
import dev.skail.SkailRecordedException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.mock.http.client.MockClientHttpRequest;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.server.ResponseStatusException;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command's exception comes back, on the first run and on every replay, as its own class with its message, causes,
 * suppressed exceptions, stack trace and fields; what cannot (a class outside the allow-list, a smuggled gadget, a
 * value that could not be serialized) comes back as a {@link SkailRecordedException} naming it, never as an
 * arbitrary object. Every rebuild is checked twice: straight from the {@link SkailError}, and after the
 * {@link SkailError} went through JSON as the history and the API store it.
 */
class ExceptionCodecTests {

    private final ExceptionCodec codec = new ExceptionCodec(List.of("com.acme.banco"));

    private final JsonMapper json = JsonMapper.builder().build();

    @BeforeEach
    void resetGadget() {
        Gadget.READS.set(0);
    }

    // ---------------------------------------------------------------- Spring's HTTP exceptions

    @Test
    void httpClientErrorExceptionKeepsItsStatusBodyAndHeaders() {
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(MediaType.APPLICATION_JSON);
        headers.add("X-Request-Id", "cobrarCartao-42");
        byte[] body = "{\"erro\":\"cobrança duplicada\",\"valor\":150.00}".getBytes(UTF_8);
        HttpClientErrorException original = HttpClientErrorException.create(HttpStatus.CONFLICT, "Conflict", headers,
                body, UTF_8);

        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt).isInstanceOf(HttpClientErrorException.class)
                .isExactlyInstanceOf(HttpClientErrorException.Conflict.class);
            HttpClientErrorException http = (HttpClientErrorException) rebuilt;
            assertThat(http.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
            assertThat(http.getStatusText()).isEqualTo("Conflict");
            assertThat(http.getResponseBodyAsString()).isEqualTo("{\"erro\":\"cobrança duplicada\",\"valor\":150.00}");
            assertThat(http.getResponseHeaders()).isNotNull();
            assertThat(http.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
            assertThat(http.getResponseHeaders().getFirst("x-request-id")).isEqualTo("cobrarCartao-42");
        });
    }

    @Test
    void httpServerErrorExceptionKeepsItsStatusAndBody() {
        HttpServerErrorException original = HttpServerErrorException.create(HttpStatus.SERVICE_UNAVAILABLE,
                "Service Unavailable", HttpHeaders.EMPTY, "gateway em manutenção".getBytes(UTF_8), UTF_8);

        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt).isExactlyInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
            HttpServerErrorException http = (HttpServerErrorException) rebuilt;
            assertThat(http.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
            assertThat(http.getResponseBodyAsString()).isEqualTo("gateway em manutenção");
            assertThat(http.getResponseHeaders()).isNotNull();
            assertThat(http.getResponseHeaders().isEmpty()).isTrue();
        });
    }

    @Test
    void webClientResponseExceptionKeepsItsStatusBodyHeadersAndCharset() {
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(MediaType.parseMediaType("text/plain;charset=UTF-8"));
        MockClientHttpRequest request = new MockClientHttpRequest(HttpMethod.POST,
                URI.create("https://gateway.acme.com/cobrancas"));
        WebClientResponseException original = WebClientResponseException.create(HttpStatus.UNPROCESSABLE_ENTITY,
                "Unprocessable Entity", headers, "cartão vencido".getBytes(UTF_8), UTF_8, request);

        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt).isExactlyInstanceOf(WebClientResponseException.UnprocessableEntity.class);
            WebClientResponseException http = (WebClientResponseException) rebuilt;
            assertThat(http.getStatusCode()).isEqualTo(HttpStatus.UNPROCESSABLE_ENTITY);
            assertThat(http.getResponseBodyAsString()).isEqualTo("cartão vencido");
            assertThat(http.getResponseBodyAsString(UTF_8)).isEqualTo("cartão vencido");
            assertThat(http).hasMessageContaining("from POST https://gateway.acme.com/cobrancas");
            assertThat(http.getRequest()).isNull(); // transient: the live request is not kept
            assertThat(http.getHeaders().getContentType()).isEqualTo(MediaType.parseMediaType("text/plain;charset=UTF-8"));
        });
    }

    @Test
    void responseStatusExceptionKeepsItsStatusReasonAndProblemDetail() {
        ResponseStatusException original = new ResponseStatusException(HttpStatus.UNPROCESSABLE_ENTITY,
                "saldo insuficiente para cobrarCartao", new IllegalStateException("limite diário atingido"));
        original.getBody().setProperty("valor", new BigDecimal("150.00"));

        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt).isExactlyInstanceOf(ResponseStatusException.class);
            ResponseStatusException status = (ResponseStatusException) rebuilt;
            assertThat(status.getStatusCode()).isEqualTo(HttpStatus.UNPROCESSABLE_ENTITY);
            assertThat(status.getReason()).isEqualTo("saldo insuficiente para cobrarCartao");
            assertThat(status.getBody().getDetail()).isEqualTo("saldo insuficiente para cobrarCartao");
            assertThat(status.getBody().getProperties()).containsEntry("valor", new BigDecimal("150.00"));
        });
    }

    // ---------------------------------------------------------------- the application's exceptions

    @Test
    void exceptionWithOnlyAMultiArgumentConstructorKeepsItsFields() {
        SaldoInsuficienteException original = new SaldoInsuficienteException("0001-9", new BigDecimal("150.00"));

        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt).isExactlyInstanceOf(SaldoInsuficienteException.class)
                .hasMessage("saldo insuficiente na conta 0001-9: faltam 150.00");
            SaldoInsuficienteException saldo = (SaldoInsuficienteException) rebuilt;
            assertThat(saldo.getAccount()).isEqualTo("0001-9");
            assertThat(saldo.getMissing()).isEqualTo(new BigDecimal("150.00")); // scale included
        });
    }

    @Test
    void exceptionThatBuildsItsOwnMessageIsNotRebuiltThroughItsConstructor() {
        ContaBloqueadaException original = new ContaBloqueadaException("0001-9");

        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt).isExactlyInstanceOf(ContaBloqueadaException.class).hasMessage("conta 0001-9 bloqueada");
            assertThat(((ContaBloqueadaException) rebuilt).getAccount()).isEqualTo("0001-9");
        });
    }

    @Test
    void recordsListsAndEnumsOfTheApplicationAreRebuilt() {
        Cobranca cobranca = new Cobranca("cob-7", new BigDecimal("150.00"), Instant.parse("2025-03-01T10:15:30Z"));
        Cobranca anterior = new Cobranca("cob-6", new BigDecimal("99.90"), Instant.parse("2025-02-01T10:15:30Z"));
        CobrancaRecusadaException original = new CobrancaRecusadaException(cobranca, List.of(anterior),
                Motivo.LIMITE_EXCEDIDO, Map.of("tentativas", 3));

        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt).isExactlyInstanceOf(CobrancaRecusadaException.class);
            CobrancaRecusadaException recusada = (CobrancaRecusadaException) rebuilt;
            assertThat(recusada.getCobranca()).isEqualTo(cobranca);
            assertThat(recusada.getAnteriores()).containsExactly(anterior);
            assertThat(recusada.getMotivo()).isSameAs(Motivo.LIMITE_EXCEDIDO);
            assertThat(recusada.getDetalhe()).isEqualTo(Map.of("tentativas", 3));
        });
    }

    @Test
    void aChainOfThreeCausesIsRebuiltAndReadableInTheRecord() {
        SocketTimeoutException timeout = new SocketTimeoutException("read timed out after 5000 ms");
        UncheckedIOException io = new UncheckedIOException("gateway de cartões não respondeu", timeout);
        IllegalStateException state = new IllegalStateException("cobrarCartao falhou", io);
        SaldoInsuficienteException original = new SaldoInsuficienteException("0001-9", new BigDecimal("150.00"));
        original.initCause(state);

        SkailError error = this.codec.encode(original);
        assertThat(error.cause()).isEqualTo(new SkailError(IllegalStateException.class.getName(),
                "cobrarCartao falhou", null, new SkailError(UncheckedIOException.class.getName(),
                        "gateway de cartões não respondeu", null, new SkailError(
                                SocketTimeoutException.class.getName(), "read timed out after 5000 ms", null, null,
                                null), null), null));
        assertRebuilt(original, (rebuilt) -> {
            assertThat(rebuilt.getCause()).isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("cobrarCartao falhou");
            assertThat(rebuilt.getCause().getCause()).isExactlyInstanceOf(UncheckedIOException.class)
                .hasMessage("gateway de cartões não respondeu");
            assertThat(rebuilt.getCause().getCause().getCause()).isExactlyInstanceOf(SocketTimeoutException.class)
                .hasMessage("read timed out after 5000 ms")
                .hasNoCause();
            assertThat(((SaldoInsuficienteException) rebuilt).getMissing()).isEqualTo(new BigDecimal("150.00"));
        });
    }

    @Test
    void suppressedExceptionsAreRebuilt() {
        ContaBloqueadaException original = new ContaBloqueadaException("0001-9");
        original.addSuppressed(new SaldoInsuficienteException("0002-7", new BigDecimal("20.50")));
        original.addSuppressed(new IllegalStateException("estorno não registrado"));

        assertRebuilt(original, (rebuilt) -> {
            Throwable[] suppressed = rebuilt.getSuppressed();
            assertThat(suppressed).hasSize(2);
            assertThat(suppressed[0]).isExactlyInstanceOf(SaldoInsuficienteException.class);
            assertThat(((SaldoInsuficienteException) suppressed[0]).getMissing()).isEqualTo(new BigDecimal("20.50"));
            assertThat(suppressed[1]).isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("estorno não registrado");
        });
    }

    @Test
    void aRegisteredClassOutsideTheApplicationPackagesIsRebuilt() {
        ExceptionCodec registering = new ExceptionCodec(List.of("com.acme.banco"),
                Set.of(FraudeExternaException.class)::contains);
        FraudeExternaException original = new FraudeExternaException("cartão marcado pelo antifraude");

        Throwable rebuilt = registering.decode(registering.encode(original), null);

        assertThat(rebuilt).isExactlyInstanceOf(FraudeExternaException.class)
            .hasMessage("cartão marcado pelo antifraude");
        assertThat(registering.whyNotRebuildable(FraudeExternaException.class)).isNull();
    }

    @Test
    void aRecordedFailureThatCouldNotBeRebuiltIsRecordedAgainAsItWas() {
        SkailError error = new SkailError("com.acme.antigo.RemovidaException", "antiga", "stack", null, null);

        Throwable rebuilt = this.codec.decode(error, null);

        assertThat(this.codec.encode(rebuilt)).isEqualTo(error);
    }

    @Test
    void aRecordedExceptionWrappedByTheFunctionIsRebuilt() {
        SkailRecordedException recorded = new SkailRecordedException(new SkailError(
                "com.acme.antigo.RemovidaException", "antiga", null));
        IllegalStateException original = new IllegalStateException("cobrarCartao falhou", recorded);

        assertRebuilt(original, (rebuilt) -> assertThat(((SkailRecordedException) rebuilt.getCause()).error())
            .isEqualTo(recorded.error()));
    }

    // ---------------------------------------------------------------- what is not rebuilt

    @Test
    void aThrowableOutsideTheAllowListComesBackNamed() {
        FraudeExternaException original = new FraudeExternaException("cartão marcado pelo antifraude");

        assertNotRebuilt(original, "com.acme.externo.FraudeExternaException: cartão marcado pelo antifraude");
    }

    @Test
    void aGadgetInAFieldIsRefusedWithoutBeingRead() {
        Cobranca cobranca = new Cobranca("cob-7", new BigDecimal("150.00"), Instant.parse("2025-03-01T10:15:30Z"));
        CobrancaRecusadaException original = new CobrancaRecusadaException(cobranca, List.of(), Motivo.FRAUDE,
                new Gadget("rm -rf /"));

        assertNotRebuilt(original, "com.acme.banco.CobrancaRecusadaException: cobrança cob-7 recusada: FRAUDE");
        assertThat(Gadget.READS).hasValue(0);
    }

    @Test
    void aJdkCollectionThatRunsForeignCodeWhileReadIsRefused() {
        PriorityQueue<String> queue = new PriorityQueue<>(List.of("a", "b"));
        Cobranca cobranca = new Cobranca("cob-7", new BigDecimal("150.00"), Instant.parse("2025-03-01T10:15:30Z"));
        CobrancaRecusadaException original = new CobrancaRecusadaException(cobranca, List.of(), Motivo.FRAUDE, queue);

        assertNotRebuilt(original, "com.acme.banco.CobrancaRecusadaException: cobrança cob-7 recusada: FRAUDE");
    }

    @Test
    void aForgedStreamWithoutAThrowableIsRefusedWithoutBeingRead() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new Gadget("rm -rf /"));
        }
        SkailError forged = new SkailError("com.acme.banco.ContaBloqueadaException", "conta 0001-9 bloqueada", null,
                null, Base64.getEncoder().encodeToString(bytes.toByteArray()));

        Throwable rebuilt = this.codec.decode(forged, null);

        assertThat(rebuilt).isExactlyInstanceOf(SkailRecordedException.class)
            .hasMessage("com.acme.banco.ContaBloqueadaException: conta 0001-9 bloqueada");
        assertThat(Gadget.READS).hasValue(0);
    }

    @Test
    void aForgedStreamOfAnAllowedValueIsNotTakenForTheException() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new ArrayList<>(List.of("150.00")));
        }
        SkailError forged = new SkailError("com.acme.banco.ContaBloqueadaException", "conta 0001-9 bloqueada", null,
                null, Base64.getEncoder().encodeToString(bytes.toByteArray()));

        assertThat(this.codec.decode(forged, null)).isExactlyInstanceOf(SkailRecordedException.class)
            .hasMessage("com.acme.banco.ContaBloqueadaException: conta 0001-9 bloqueada");
    }

    @Test
    void aKnownDeserializationTriggerOfTheJdkIsRefused() {
        assertNotRebuilt(new BadAttributeValueExpException("150.00"),
                "javax.management.BadAttributeValueExpException: null");
        assertThat(this.codec.whyNotRebuildable(BadAttributeValueExpException.class))
            .isEqualTo("javax.management.BadAttributeValueExpException is refused: reading it back runs code of the "
                    + "values it holds");
    }

    @Test
    void aSerializedFormBeyondTheLimitIsNotRecorded() {
        byte[] body = new byte[ExceptionStreams.MAX_BYTES];
        HttpServerErrorException original = HttpServerErrorException.create(HttpStatus.BAD_GATEWAY, "Bad Gateway",
                HttpHeaders.EMPTY, body, UTF_8);

        SkailError error = this.codec.encode(original);

        assertThat(error.data()).isNull();
        assertThat(error.message()).isEqualTo(original.getMessage());
        assertNotRebuilt(original, "org.springframework.web.client.HttpServerErrorException$BadGateway: "
                + original.getMessage());
    }

    @Test
    void aNonSerializableFieldValueIsRecordedWithoutItsSerializedForm() {
        GatewayIndisponivelException original = new GatewayIndisponivelException("gateway de cartões fora do ar",
                new GatewayIndisponivelException.Conexao("gateway.acme.com"));

        SkailError error = this.codec.encode(original);

        assertThat(error.type()).isEqualTo(GatewayIndisponivelException.class.getName());
        assertThat(error.message()).isEqualTo("gateway de cartões fora do ar");
        assertThat(error.stackTrace()).contains("aNonSerializableFieldValueIsRecordedWithoutItsSerializedForm");
        assertThat(error.data()).isNull();
        assertNotRebuilt(original, "com.acme.banco.GatewayIndisponivelException: gateway de cartões fora do ar");
    }

    @Test
    void aClassThatIsGoneComesBackNamedWithItsCauses() {
        SaldoInsuficienteException original = new SaldoInsuficienteException("0001-9", new BigDecimal("150.00"));
        original.initCause(new IllegalStateException("limite diário atingido"));
        ClassLoader withoutTheApplication = new ClassLoader(ClassLoader.getPlatformClassLoader()) {
        };

        Throwable rebuilt = this.codec.decode(this.codec.encode(original), withoutTheApplication);

        assertThat(rebuilt).isExactlyInstanceOf(SkailRecordedException.class)
            .hasMessage("com.acme.banco.SaldoInsuficienteException: saldo insuficiente na conta 0001-9: faltam 150.00");
        assertThat(rebuilt.getCause()).isExactlyInstanceOf(SkailRecordedException.class)
            .hasMessage("java.lang.IllegalStateException: limite diário atingido");
    }

    @Test
    void aRecordWithoutSerializedFormComesBackNamed() {
        SkailError legacy = this.json.readValue(
                "{\"type\":\"com.acme.banco.ContaBloqueadaException\",\"message\":\"conta 0001-9 bloqueada\","
                        + "\"stackTrace\":\"...\"}", SkailError.class);

        assertThat(legacy).isEqualTo(new SkailError("com.acme.banco.ContaBloqueadaException", "conta 0001-9 bloqueada",
                "..."));
        assertThat(this.codec.decode(legacy, null)).isExactlyInstanceOf(SkailRecordedException.class)
            .hasMessage("com.acme.banco.ContaBloqueadaException: conta 0001-9 bloqueada");
    }

    @Test
    void encodeNeverThrows() {
        MensagemIndisponivelException original = new MensagemIndisponivelException();

        SkailError error = this.codec.encode(original);

        assertThat(error.type()).isEqualTo(MensagemIndisponivelException.class.getName());
        assertThat(error.message()).isNull();
        assertThat(error.stackTrace()).isNull();
        assertThat(this.codec.decode(error, null)).isExactlyInstanceOf(MensagemIndisponivelException.class);
    }

    // ---------------------------------------------------------------- the start-up check

    @Test
    void whyNotRebuildableAcceptsTypesWhoseFieldsCanBeRebuilt() {
        assertThat(this.codec.whyNotRebuildable(SaldoInsuficienteException.class)).isNull();
        assertThat(this.codec.whyNotRebuildable(ContaBloqueadaException.class)).isNull();
        assertThat(this.codec.whyNotRebuildable(CobrancaRecusadaException.class)).isNull();
        assertThat(this.codec.whyNotRebuildable(HttpClientErrorException.class)).isNull();
        assertThat(this.codec.whyNotRebuildable(ResponseStatusException.class)).isNull();
        assertThat(this.codec.whyNotRebuildable(WebClientResponseException.class)).isNull();
        assertThat(this.codec.whyNotRebuildable(SocketTimeoutException.class)).isNull();
    }

    @Test
    void whyNotRebuildableNamesANonSerializableField() {
        assertThat(this.codec.whyNotRebuildable(GatewayIndisponivelException.class))
            .isEqualTo("field 'conexao' of com.acme.banco.GatewayIndisponivelException has type "
                    + "com.acme.banco.GatewayIndisponivelException$Conexao, which is not Serializable (make it "
                    + "Serializable, or the field transient)");
    }

    @Test
    void whyNotRebuildableNamesAClassOutsideTheAllowList() {
        assertThat(this.codec.whyNotRebuildable(FraudeExternaException.class))
            .startsWith("com.acme.externo.FraudeExternaException is outside the packages exceptions are rebuilt from")
            .contains("com.acme.banco.")
            .endsWith("and is not registered");
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Rebuilds the exception from its record, and from its record after a JSON round trip, and checks both: same
     * class, message, stack trace, cause chain and suppressed exceptions as the original, then the given checks.
     */
    private void assertRebuilt(Throwable original, Consumer<Throwable> checks) {
        SkailError error = this.codec.encode(original);
        assertThat(error.data()).isNotNull();
        SkailError read = jsonRoundTrip(error);
        for (SkailError each : List.of(error, read)) {
            Throwable rebuilt = this.codec.decode(each, getClass().getClassLoader());
            assertSameAs(rebuilt, original);
            checks.accept(rebuilt);
        }
    }

    private void assertNotRebuilt(Throwable original, String message) {
        SkailError error = this.codec.encode(original);
        for (SkailError each : List.of(error, jsonRoundTrip(error))) {
            Throwable rebuilt = this.codec.decode(each, getClass().getClassLoader());
            assertThat(rebuilt).isExactlyInstanceOf(SkailRecordedException.class).hasMessage(message);
            assertThat(((SkailRecordedException) rebuilt).error()).isEqualTo(error);
        }
    }

    private SkailError jsonRoundTrip(SkailError error) {
        String written = this.json.writeValueAsString(error);
        SkailError read = this.json.readValue(written, SkailError.class);
        assertThat(read).isEqualTo(error);
        return read;
    }

    private static void assertSameAs(Throwable rebuilt, Throwable original) {
        assertThat(rebuilt).isNotSameAs(original);
        assertThat(rebuilt).isExactlyInstanceOf(original.getClass()).hasMessage(original.getMessage());
        assertThat(rebuilt.getStackTrace()).containsExactly(original.getStackTrace());
        assertThat(rebuilt.getSuppressed()).hasSameSizeAs(original.getSuppressed());
        for (int i = 0; i < original.getSuppressed().length; i++) {
            assertSameAs(rebuilt.getSuppressed()[i], original.getSuppressed()[i]);
        }
        if (original.getCause() == null) {
            assertThat(rebuilt.getCause()).isNull();
        }
        else {
            assertSameAs(rebuilt.getCause(), original.getCause());
        }
    }

    /** An exception whose message and description cannot be computed. */
    static class MensagemIndisponivelException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        @Override
        public String getMessage() {
            throw new UnsupportedOperationException("message unavailable");
        }

        @Override
        public String toString() {
            throw new UnsupportedOperationException("toString unavailable");
        }
    }
}
