package dev.skail;

import java.lang.reflect.Type;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.skail.runtime.RawJsonDeserializer;
import dev.skail.runtime.SkailJson;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * An execution as the platform knows it.
 * <p>
 * Its arguments and result are the JSON text that was recorded, exactly ({@code 150.00} stays {@code 150.00}); as
 * JSON (the HTTP API, a history file) they are JSON values, not strings. The typed accessors
 * ({@link #result(Class)}, {@link #argument(int, Class)}) read that text with skail's default codec; an application
 * that has its own {@code SkailJson} bean reads the text with it.
 *
 * @param taskId the execution's id, the one given when it was triggered
 * @param workload the workload's name
 * @param version the workload's version the execution belongs to
 * @param function the function's name
 * @param status where it stands
 * @param arguments the positional arguments it was triggered with, as the JSON text of an array
 * @param result the function's result as JSON text, once {@link ExecutionStatus#COMPLETED} ({@code "null"} for a
 * {@code void} function)
 * @param error the failure, once {@link ExecutionStatus#FAILED}
 * @param attempt the function's delivery attempt, starting at 1
 * @param createdAt when it was triggered
 * @param updatedAt when it last changed
 * @param nextRunAt when it is due to run again, if it is waiting for a backoff or a timer
 * @param parentTaskId the execution that started this one as a child, if any
 * @param waitingFor the {@code workload:version} it waits for, when it is due (or waiting) but no runtime of that
 * version is running (S12): it runs once one starts
 * @param tags its business keys ({@link SkailTag}, {@link SkailContext#tag}): each key with its values, keys and
 * values in alphabetical order; empty when it has none
 */
public record SkailExecution(String taskId, String workload, String version, String function, ExecutionStatus status,
        @JsonRawValue @JsonDeserialize(using = RawJsonDeserializer.class) String arguments,
        @JsonRawValue @JsonDeserialize(using = RawJsonDeserializer.class) @Nullable String result,
        @Nullable SkailError error, int attempt, Instant createdAt, Instant updatedAt, @Nullable Instant nextRunAt,
        @Nullable String parentTaskId, @Nullable String waitingFor, Map<String, List<String>> tags) {

    public SkailExecution {
        tags = sorted(tags);
    }

    /** An execution without tags. */
    public SkailExecution(String taskId, String workload, String version, String function, ExecutionStatus status,
            String arguments, @Nullable String result, @Nullable SkailError error, int attempt, Instant createdAt,
            Instant updatedAt, @Nullable Instant nextRunAt, @Nullable String parentTaskId,
            @Nullable String waitingFor) {
        this(taskId, workload, version, function, status, arguments, result, error, attempt, createdAt, updatedAt,
                nextRunAt, parentTaskId, waitingFor, Map.of());
    }

    /** An execution that waits for nothing but its turn. */
    public SkailExecution(String taskId, String workload, String version, String function, ExecutionStatus status,
            String arguments, @Nullable String result, @Nullable SkailError error, int attempt, Instant createdAt,
            Instant updatedAt, @Nullable Instant nextRunAt, @Nullable String parentTaskId) {
        this(taskId, workload, version, function, status, arguments, result, error, attempt, createdAt, updatedAt,
                nextRunAt, parentTaskId, null, Map.of());
    }

    /**
     * The values of one tag.
     * @param key the tag's key, e.g. {@code pedido}
     * @return its values, in alphabetical order; empty when the execution has no such tag
     */
    public List<String> tag(String key) {
        return this.tags.getOrDefault(key, List.of());
    }

    private static Map<String, List<String>> sorted(@Nullable Map<String, List<String>> tags) {
        if (tags == null || tags.isEmpty()) {
            return Map.of();
        }
        Map<String, List<String>> sorted = new TreeMap<>();
        tags.forEach((key, values) -> {
            List<String> copy = new ArrayList<>(new java.util.TreeSet<>(values));
            sorted.put(key, List.copyOf(copy));
        });
        return Collections.unmodifiableMap(sorted);
    }

    /**
     * The function's result, read as this type: e.g. {@code execution.result(Pedido.class)}.
     * @param type the function's return type (or one its JSON reads as)
     * @return the result, or {@code null} when there is none yet (or the function returned {@code null})
     * @throws IllegalArgumentException if the result cannot be read as this type
     */
    @SuppressWarnings("unchecked")
    public <T> @Nullable T result(Class<T> type) {
        return (T) result((Type) type);
    }

    /**
     * The function's result, read as this generic type: e.g. {@code execution.result(method.getGenericReturnType())}.
     * @param type the function's return type (or one its JSON reads as)
     * @return the result, or {@code null} when there is none yet (or the function returned {@code null})
     * @throws IllegalArgumentException if the result cannot be read as this type
     */
    public @Nullable Object result(Type type) {
        return SkailJson.standard().readView(this.result, type, "the result of execution '" + this.taskId + "'");
    }

    /**
     * One of the arguments the execution was triggered with, read as this type.
     * @param index the parameter's position, from 0
     * @param type the parameter's type (or one its JSON reads as)
     * @return the argument
     * @throws IllegalArgumentException if there is no such argument or it cannot be read as this type
     */
    @SuppressWarnings("unchecked")
    public <T> @Nullable T argument(int index, Class<T> type) {
        return (T) argument(index, (Type) type);
    }

    /**
     * One of the arguments the execution was triggered with, read as this generic type.
     * @param index the parameter's position, from 0
     * @param type the parameter's type (or one its JSON reads as)
     * @return the argument
     * @throws IllegalArgumentException if there is no such argument or it cannot be read as this type
     */
    public @Nullable Object argument(int index, Type type) {
        return SkailJson.standard().readElement(this.arguments, index, type,
                "argument " + index + " of execution '" + this.taskId + "'");
    }
}
