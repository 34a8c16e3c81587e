package dev.skail.runtime;

import java.io.StringWriter;
import java.lang.reflect.Type;

import dev.skail.SkailError;
import dev.skail.SkailJsonCustomizer;
import dev.skail.platform.StoredText;
import org.jspecify.annotations.Nullable;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.ser.impl.UnknownSerializer;

/**
 * The JSON codec of arguments, results and errors. Values are written and read with the declared (generic)
 * types of the methods; no default typing, so a history never names a class to instantiate, except for a
 * recorded exception, which {@link ExceptionCodec} rebuilds through an allow-list.
 * <p>
 * A value a function sees must be equal, and of the same type, on every replay, so the codec is exact whatever
 * mapper it wraps (see {@link #exact(JsonMapper)}): decimals keep their digits and scale, also in trees, and times
 * keep their offset, zone and nanoseconds.
 */
public class SkailJson {

    private static final SkailJson STANDARD = createDefault();

    private final JsonMapper mapper;

    /**
     * A codec over a copy of this mapper (its modules and settings) made exact: the mapper itself is not changed.
     * @param mapper the mapper whose modules and settings to use
     */
    public SkailJson(JsonMapper mapper) {
        this.mapper = exact(mapper);
    }

    /** The default codec: a plain {@link JsonMapper} of its own, so the application's settings stay its own. */
    public static SkailJson createDefault() {
        return new SkailJson(JsonMapper.builder().build());
    }

    /**
     * The default codec, its mapper's builder customized first by each of {@code customizers}, in order.
     * @param customizers what to apply to the builder (modules, serializers, settings); the codec is made exact after
     */
    public static SkailJson createDefault(Iterable<? extends SkailJsonCustomizer> customizers) {
        JsonMapper.Builder builder = JsonMapper.builder();
        for (SkailJsonCustomizer customizer : customizers) {
            customizer.customize(builder);
        }
        return new SkailJson(builder.build());
    }

    /** A shared default codec, for reading views ({@code SkailExecution.result(Class)}) outside a runtime. */
    public static SkailJson standard() {
        return STANDARD;
    }

    /**
     * A copy of the mapper with the settings that make a history exact, whatever the mapper it comes from enables:
     * <ul>
     * <li>trees ({@link #parse}, the trigger and event bodies) hold decimals as {@code BigDecimal}, not {@code double},
     * and keep trailing zeros: {@code 150.00} stays {@code 150.00}, {@code 12345678901234567.89} keeps its digits;
     * <li>an untyped value ({@code Object}, {@code Map<String, Object>}) reads a decimal as {@code BigDecimal} too, so
     * it is the same whether it is read from text or from a tree;
     * <li>{@code BigDecimal} is written as {@code BigDecimal.toString()} (not plain), so {@code 1E+300} keeps its
     * scale;
     * <li>times are ISO-8601 text, not numbers; {@code OffsetDateTime} and {@code ZonedDateTime} keep their offset
     * (not adjusted to the mapper's time zone, on write or read) and a {@code ZonedDateTime} its zone id, not
     * normalized ({@code UTC} stays {@code UTC}); nothing is truncated to milliseconds.
     * </ul>
     * {@code double} and {@code float} need nothing: Jackson writes the shortest text that reads back as the same
     * value, and {@code long} near 2^63 and {@code BigInteger} are read as integers, never through a double.
     */
    static JsonMapper exact(JsonMapper mapper) {
        return mapper.rebuild()
            .enable(JsonNodeFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS, DateTimeFeature.WRITE_DATE_KEYS_AS_TIMESTAMPS,
                    DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS, DateTimeFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE,
                    DateTimeFeature.WRITE_DATES_WITH_CONTEXT_TIME_ZONE, DateTimeFeature.NORMALIZE_DESERIALIZED_ZONE_ID,
                    DateTimeFeature.TRUNCATE_TO_MSECS_ON_READ, DateTimeFeature.TRUNCATE_TO_MSECS_ON_WRITE)
            .enable(DateTimeFeature.WRITE_DATES_WITH_ZONE_ID)
            .build();
    }

    public JsonMapper mapper() {
        return this.mapper;
    }

    public String write(@Nullable Object value) {
        // a store keeps text as UTF-8: half a surrogate pair is recorded as an escape, to read back as itself
        return StoredText.escapeLoneSurrogates(this.mapper.writeValueAsString(value));
    }

    public JsonNode tree(@Nullable Object value) {
        return (value != null) ? this.mapper.valueToTree(value) : NullNode.getInstance();
    }

    public JsonNode parse(@Nullable String json) {
        return (json != null) ? this.mapper.readTree(json) : NullNode.getInstance();
    }

    public @Nullable Object read(@Nullable String json, Type type) {
        if (json == null || type == void.class || type == Void.class) {
            return null;
        }
        return this.mapper.readValue(json, this.mapper.constructType(type));
    }

    /**
     * The JSON value the parser is at, as text, with every number as written (no trip through a {@code double}):
     * how a view keeps a recorded value's exact text when it is itself read from JSON.
     */
    public static String copy(JsonParser parser) {
        StringWriter text = new StringWriter();
        try (JsonGenerator generator = STANDARD.mapper.createGenerator(text)) {
            generator.copyCurrentStructureExact(parser);
        }
        return text.toString();
    }

    /**
     * A view's JSON text (a result, a payload) read as this type, straight from the text.
     * @param what what the text is, for the message of a failure
     * @throws IllegalArgumentException if it cannot be read as this type
     */
    public @Nullable Object readView(@Nullable String json, Type type, String what) {
        try {
            return read(json, type);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("Cannot read " + what + " as " + type.getTypeName() + ": "
                    + ex.getOriginalMessage(), ex);
        }
    }

    /**
     * The element at this index of a JSON array text (positional arguments) read as this type, straight from the text.
     * @param what what the element is, for the message of a failure
     * @throws IllegalArgumentException if there is no such element or it cannot be read as this type
     */
    public @Nullable Object readElement(String jsonArray, int index, Type type, String what) {
        try (JsonParser parser = this.mapper.createParser(jsonArray)) {
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                throw new IllegalArgumentException("Cannot read " + what + ": " + jsonArray + " is not a JSON array");
            }
            JsonToken token = parser.nextToken();
            for (int i = 0; i < index && token != null && token != JsonToken.END_ARRAY; i++) {
                parser.skipChildren();
                token = parser.nextToken();
            }
            if (index < 0 || token == null || token == JsonToken.END_ARRAY) {
                throw new IllegalArgumentException("Cannot read " + what + ": there is no such argument in "
                        + jsonArray);
            }
            // the rest of the array follows the element: not a trailing token to refuse
            return this.mapper.readerFor(this.mapper.constructType(type))
                .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .readValue(parser);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("Cannot read " + what + " as " + type.getTypeName() + ": "
                    + ex.getOriginalMessage(), ex);
        }
    }

    /**
     * Whether two arrays of positional arguments are the same arguments for parameters of these types: each one is
     * decoded with its declared type (as the function would see it) and written again, and the two are compared with
     * numbers by value, so {@code 1} and {@code 1.0} for an {@code int}, or {@code 150.00} and {@code 150.0} for a
     * {@code BigDecimal}, are the same. A value that its type cannot read is compared as sent.
     */
    public boolean sameArguments(JsonNode arguments, JsonNode other, Type[] types) {
        if (!arguments.isArray() || !other.isArray() || arguments.size() != other.size()
                || arguments.size() != types.length) {
            return arguments.equals(other);
        }
        for (int i = 0; i < types.length; i++) {
            if (!decoded(arguments.get(i), types[i]).equals(SkailJson::compareByValue, decoded(other.get(i), types[i]))) {
                return false;
            }
        }
        return true;
    }

    private JsonNode decoded(JsonNode node, Type type) {
        try {
            return tree(convert(node, type));
        }
        catch (JacksonException | IllegalArgumentException ex) {
            return node;
        }
    }

    private static int compareByValue(JsonNode node, JsonNode other) {
        if (node.isNumber() && other.isNumber()) {
            try {
                return node.decimalValue().compareTo(other.decimalValue());
            }
            catch (RuntimeException ex) {
                // NaN or infinity: no decimal value
            }
        }
        return node.equals(other) ? 0 : 1;
    }

    public @Nullable Object convert(JsonNode node, Type type) {
        return this.mapper.treeToValue(node, this.mapper.constructType(type));
    }

    public String writeError(SkailError error) {
        return write(error);
    }

    public @Nullable SkailError readError(@Nullable String json) {
        return (json != null) ? this.mapper.readValue(json, SkailError.class) : null;
    }

    /** Why values of this type cannot be read back from JSON, or {@code null} when they can. */
    /** Whether a module (e.g. of a {@code SkailJsonCustomizer}) gives this abstract type a deserializer of its own. */
    private boolean hasOwnDeserializer(JavaType abstractType) {
        try {
            ValueDeserializer<Object> deserializer = this.mapper._deserializationContext()
                .findRootValueDeserializer(abstractType);
            return !(deserializer instanceof AbstractDeserializer) && !(deserializer instanceof BeanDeserializerBase);
        }
        catch (JacksonException | IllegalArgumentException ex) {
            return false;
        }
    }

    public @Nullable String whyNotReadable(Type type) {
        if (type instanceof Class<?> raw && (raw.isPrimitive() || raw == Void.class)) {
            return null;
        }
        try {
            JavaType javaType = this.mapper.constructType(type);
            if (javaType.isAbstract() && !javaType.isContainerType() && !javaType.isReferenceType()
                    && !javaType.isTypeOrSubTypeOf(JsonNode.class)
                    && !javaType.getRawClass().isAnnotationPresent(JsonTypeInfo.class)
                    && !hasOwnDeserializer(javaType)) {
                return "it is abstract and carries no @JsonTypeInfo, so Jackson cannot choose an implementation";
            }
            ValueDeserializer<Object> deserializer = this.mapper._deserializationContext()
                .findRootValueDeserializer(javaType);
            if (deserializer instanceof BeanDeserializerBase bean && !bean.getValueInstantiator().canInstantiate()) {
                return "Jackson finds no constructor or factory to create it";
            }
            return null;
        }
        catch (JacksonException | IllegalArgumentException ex) {
            return ex.getMessage();
        }
    }

    /** Why values of this type cannot be written as JSON, or {@code null} when they can. */
    public @Nullable String whyNotWritable(Type type) {
        if (type instanceof Class<?> raw && (raw.isPrimitive() || raw == Void.class || raw == Object.class)) {
            return null;
        }
        try {
            JavaType javaType = this.mapper.constructType(type);
            if (javaType.isAbstract() || javaType.isContainerType() || javaType.isReferenceType()) {
                return null;
            }
            ValueSerializer<Object> serializer = this.mapper._serializationContext()
                .findTypedValueSerializer(javaType, true);
            if (serializer instanceof UnknownSerializer) {
                return "Jackson finds no property to write";
            }
            return null;
        }
        catch (JacksonException | IllegalArgumentException ex) {
            return ex.getMessage();
        }
    }
}
