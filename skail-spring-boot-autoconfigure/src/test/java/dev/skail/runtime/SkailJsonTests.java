package dev.skail.runtime;

import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TimeZone;
import java.util.UUID;
import java.util.stream.Stream;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ParameterizedTypeReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a function sees of a value must be equal, and of the same class, after it is recorded and read back with its
 * declared type, whichever way the runtime reads it: from the stored text (command results), from a tree (trigger
 * arguments, event payloads) or from a value turned into a tree (arguments given through {@code SkailClient}).
 */
class SkailJsonTests {

    private final SkailJson json = SkailJson.createDefault();

    enum Status {
        APPROVED, REFUSED
    }

    record Item(String sku, int quantity, BigDecimal price) {
    }

    record Order(UUID id, List<Item> items, Map<String, BigDecimal> totals, OffsetDateTime at, Optional<String> note) {
    }

    static Stream<Arguments> values() {
        Map<String, BigDecimal> totals = new LinkedHashMap<>();
        totals.put("goods", new BigDecimal("150.00"));
        totals.put("tax", new BigDecimal("12345678901234567.89"));
        Order order = new Order(UUID.fromString("7f7a1f0e-0d1c-4c1a-9b7e-1c2d3e4f5a6b"),
                List.of(new Item("SKU-1", 2, new BigDecimal("75.00")), new Item("SKU-2", 1, new BigDecimal("0.10"))),
                totals, OffsetDateTime.parse("2026-03-01T10:15:30.5+03:00"), Optional.of("fragile"));
        return Stream.of(
                value("BigDecimal with scale 2", new BigDecimal("150.00"), BigDecimal.class),
                value("BigDecimal beyond a double", new BigDecimal("12345678901234567.89"), BigDecimal.class),
                value("BigDecimal with a negative scale", new BigDecimal("1E+300"), BigDecimal.class),
                value("BigInteger", new BigInteger("123456789012345678901234567890"), BigInteger.class),
                value("long near 2^63", Long.MAX_VALUE - 1, long.class),
                value("Long.MIN_VALUE", Long.MIN_VALUE, Long.class),
                value("double 0.1", 0.1, double.class),
                value("double 1e300", 1e300, double.class),
                value("double's smallest", Double.MIN_VALUE, Double.class),
                value("float 0.1", 0.1f, float.class),
                value("Instant with nanos", Instant.parse("2026-03-01T10:15:30.123456789Z"), Instant.class),
                value("LocalDate", LocalDate.parse("2026-03-01"), LocalDate.class),
                value("OffsetDateTime at +03:00", OffsetDateTime.parse("2026-03-01T10:15:30.5+03:00"),
                        OffsetDateTime.class),
                value("ZonedDateTime in a region", ZonedDateTime.parse("2026-03-01T10:15:30.5+03:00[Europe/Moscow]"),
                        ZonedDateTime.class),
                value("ZonedDateTime in UTC", ZonedDateTime.parse("2026-03-01T10:15:30Z[UTC]"), ZonedDateTime.class),
                value("Duration with nanos", Duration.ofSeconds(90, 1), Duration.class),
                value("UUID", UUID.fromString("7f7a1f0e-0d1c-4c1a-9b7e-1c2d3e4f5a6b"), UUID.class),
                value("enum", Status.REFUSED, Status.class),
                value("Optional of a BigDecimal", Optional.of(new BigDecimal("1.10")),
                        new ParameterizedTypeReference<Optional<BigDecimal>>() { }.getType()),
                value("empty Optional", Optional.empty(),
                        new ParameterizedTypeReference<Optional<BigDecimal>>() { }.getType()),
                value("null", null, String.class),
                value("record with List<Item> and Map<String, BigDecimal>", order, Order.class),
                value("List of records", new ArrayList<>(order.items()), new ParameterizedTypeReference<List<Item>>() { }.getType()),
                value("array of BigDecimal", new BigDecimal[] { new BigDecimal("1.0"), new BigDecimal("2.50") },
                        BigDecimal[].class),
                value("array of long", new long[] { Long.MAX_VALUE - 1, -1 }, long[].class),
                value("byte[]", new byte[] { 0, 1, -1, 127 }, byte[].class),
                value("String with an emoji and accents", "Pedido \uD83D\uDE00 não pago", String.class),
                value("String cut in the middle of an emoji", "Pedido \uD83D", String.class),
                value("String with half a pair at its start", "\uDE00 pago", String.class),
                value("record with half a pair in a list and a map key",
                        new Order(UUID.fromString("7f7a1f0e-0d1c-4c1a-9b7e-1c2d3e4f5a6b"),
                                List.of(new Item("SKU-\uD83D", 1, new BigDecimal("0.10"))),
                                Map.of("tax\uDE00", new BigDecimal("1.00")), OffsetDateTime.parse("2026-03-01T10:15:30Z"),
                                Optional.of("fr\uD83Dgil")),
                        Order.class));
    }

    /** The text as a store gives it back: every store keeps text as UTF-8. */
    private static String stored(String json) {
        return new String(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static Arguments value(String name, @Nullable Object value, Type type) {
        return Arguments.argumentSet(name, value, type);
    }

    @ParameterizedTest
    @MethodSource("values")
    void aValueReadFromItsRecordedTextIsEqualAndOfTheSameClass(@Nullable Object value, Type type) {
        assertSame(value, this.json.read(stored(this.json.write(value)), type));
    }

    @ParameterizedTest
    @MethodSource("values")
    void aValueReadThroughATreeIsEqualAndOfTheSameClass(@Nullable Object value, Type type) {
        // how trigger arguments and event payloads are read: the stored text parsed, then converted
        assertSame(value, this.json.convert(this.json.parse(stored(this.json.write(value))), type));
        // how arguments given to SkailClient are taken: the value as a tree, written, then read back
        assertSame(value, this.json.read(stored(this.json.write(this.json.tree(value))), type));
    }

    @ParameterizedTest
    @MethodSource("values")
    void anApplicationsLossyMapperIsMadeExact(@Nullable Object value, Type type) {
        JsonMapper lossy = JsonMapper.builder()
            .defaultTimeZone(TimeZone.getTimeZone("America/Sao_Paulo"))
            .enable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS, DateTimeFeature.TRUNCATE_TO_MSECS_ON_WRITE)
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .build();
        SkailJson application = new SkailJson(lossy);
        assertSame(value, application.read(stored(application.write(value)), type));
        assertSame(value, application.convert(application.parse(stored(application.write(value))), type));
        assertThat(lossy.isEnabled(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)).as("the application's own mapper")
            .isTrue();
    }

    @Test
    void halfASurrogatePairIsWrittenAsAnEscapeAndAPairAsItIs() {
        assertThat(this.json.write("Pedido \uD83D\uDE00 n\u00e3o")).isEqualTo("\"Pedido \uD83D\uDE00 n\u00e3o\"");
        assertThat(this.json.write("Pedido \uD83D")).isEqualTo("\"Pedido \\ud83d\"");
        assertThat(this.json.write(List.of("\uDE00\uD83D"))).isEqualTo("[\"\\ude00\\ud83d\"]");
        // as a request's body may hold it: the escape read into a tree, then recorded
        assertThat(this.json.write(this.json.parse("{\"nota\":\"\\ud83d\"}"))).isEqualTo("{\"nota\":\"\\ud83d\"}");
    }

    @Test
    void decimalsAreWrittenAsGiven() {
        assertThat(this.json.write(new BigDecimal("150.00"))).isEqualTo("150.00");
        assertThat(this.json.write(this.json.parse("[150.00, 12345678901234567.89]")))
            .isEqualTo("[150.00,12345678901234567.89]");
        assertThat(this.json.write(OffsetDateTime.parse("2026-03-01T10:15:30.5+03:00")))
            .isEqualTo("\"2026-03-01T10:15:30.5+03:00\"");
    }

    @Test
    void anExecutionShowsItsArgumentsAndResultAsTheRecordedJsonValues() {
        SkailExecution execution = new SkailExecution("t-1", "vendas", "v1", "pagar", ExecutionStatus.COMPLETED,
                "[150.00,12345678901234567.89,\"2026-03-01T10:15:30.5+03:00\"]", "{\"total\":150.00}", null, 1,
                Instant.parse("2026-03-01T00:00:00Z"), Instant.parse("2026-03-01T00:00:01Z"), null, null);

        String written = this.json.write(execution);

        assertThat(written).contains("\"arguments\":[150.00,12345678901234567.89,\"2026-03-01T10:15:30.5+03:00\"]")
            .contains("\"result\":{\"total\":150.00}");
        SkailExecution read = this.json.mapper().readValue(written, SkailExecution.class);
        assertThat(read).isEqualTo(execution);
        // a mapper of other settings (a client's) keeps the text too
        assertThat(JsonMapper.shared().readValue(written, SkailExecution.class)).isEqualTo(execution);
        assertThat(read.argument(0, BigDecimal.class)).isEqualTo(new BigDecimal("150.00"));
        assertThat(read.argument(1, BigDecimal.class)).isEqualTo(new BigDecimal("12345678901234567.89"));
        assertThat(read.argument(2, OffsetDateTime.class)).isEqualTo(OffsetDateTime.parse("2026-03-01T10:15:30.5+03:00"));
        assertThat(read.result(Map.class)).isEqualTo(Map.of("total", new BigDecimal("150.00")));
    }

    @Test
    void repeatedArgumentsAreComparedAsTheFunctionSeesThem() {
        Type[] amount = { int.class, BigDecimal.class };
        assertThat(this.json.sameArguments(this.json.parse("[1, 150.00]"), this.json.parse("[1.0, 150.0]"), amount))
            .isTrue();
        assertThat(this.json.sameArguments(this.json.parse("[1, 150.00]"), this.json.parse("[2, 150.00]"), amount))
            .isFalse();
        assertThat(this.json.sameArguments(this.json.parse("[1, 150.00]"), this.json.parse("[1, 150.01]"), amount))
            .isFalse();
    }

    private static void assertSame(@Nullable Object expected, @Nullable Object actual) {
        if (expected == null) {
            assertThat(actual).isNull();
            return;
        }
        assertThat(actual).isNotNull();
        assertThat(actual.getClass()).isEqualTo(expected.getClass());
        assertThat(Objects.deepEquals(expected, actual)).as("%s equals %s", actual, expected).isTrue();
    }
}
