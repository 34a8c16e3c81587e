package dev.skail.runtime;

import java.lang.reflect.Type;

import dev.skail.SkailError;
import org.jspecify.annotations.Nullable;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.ser.impl.UnknownSerializer;

/**
 * The JSON codec of arguments, results and errors. Values are written and read with the declared (generic)
 * types of the methods; no default typing, so a history never names a class to instantiate, except for a
 * recorded exception, which {@link ExceptionCodec} rebuilds through an allow-list.
 */
public class SkailJson {

    private final JsonMapper mapper;

    public SkailJson(JsonMapper mapper) {
        this.mapper = mapper;
    }

    /** The default codec: a plain {@link JsonMapper} of its own, so the application's settings stay its own. */
    public static SkailJson createDefault() {
        return new SkailJson(JsonMapper.builder().build());
    }

    public JsonMapper mapper() {
        return this.mapper;
    }

    public String write(@Nullable Object value) {
        return this.mapper.writeValueAsString(value);
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
    public @Nullable String whyNotReadable(Type type) {
        if (type instanceof Class<?> raw && (raw.isPrimitive() || raw == Void.class)) {
            return null;
        }
        try {
            JavaType javaType = this.mapper.constructType(type);
            if (javaType.isAbstract() && !javaType.isContainerType() && !javaType.isReferenceType()
                    && !javaType.isTypeOrSubTypeOf(JsonNode.class)
                    && !javaType.getRawClass().isAnnotationPresent(JsonTypeInfo.class)) {
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
