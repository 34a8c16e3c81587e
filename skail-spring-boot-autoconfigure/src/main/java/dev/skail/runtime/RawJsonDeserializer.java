package dev.skail.runtime;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/**
 * Reads a JSON value of a view ({@code SkailExecution.arguments}, {@code result}, ...) as its JSON text, exactly as
 * written: the other half of {@code @JsonRawValue}, so that a history read back from its file (the replayer) keeps
 * {@code 150.00} as {@code 150.00}.
 */
public class RawJsonDeserializer extends ValueDeserializer<String> {

    @Override
    public String deserialize(JsonParser parser, DeserializationContext context) {
        return SkailJson.copy(parser);
    }
}
