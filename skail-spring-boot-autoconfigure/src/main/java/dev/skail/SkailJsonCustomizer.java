package dev.skail;

import tools.jackson.databind.json.JsonMapper;

/**
 * Customizes the {@link JsonMapper} of skail's default JSON codec (arguments, results, errors, the HTTP API) without
 * replacing the codec: declare beans of this type, e.g. to add a module or a serializer of a type your functions
 * use. They are applied in {@link org.springframework.core.annotation.Order order} to a builder of skail's own mapper
 * (never the application's), and the start-up check of the functions' and commands' types uses the result.
 * <p>
 * Whatever a customizer sets, skail then makes the mapper exact, as it does with any mapper (decimals keep their
 * digits and scale, times are ISO-8601 text with their offset and zone): those settings cannot be turned off. A
 * {@code SkailJson} bean of the application's own replaces the default codec, and customizers are then not applied.
 */
@FunctionalInterface
public interface SkailJsonCustomizer {

    /**
     * Customizes the builder of skail's mapper.
     * @param builder the builder, with skail's defaults applied
     */
    void customize(JsonMapper.Builder builder);
}
