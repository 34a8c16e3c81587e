package dev.skail;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import dev.skail.runtime.Tags;
import org.jspecify.annotations.Nullable;

/**
 * Which executions to list ({@link SkailClient#search}) or count ({@link SkailClient#count}): immutable, each
 * {@code with...} method answers a new query. Every filter given must match; none given matches every execution.
 * <pre>{@code
 * SkailPage failed = client.search(SkailQuery.all()
 *     .withFunction("processarPedido")
 *     .withStatuses(ExecutionStatus.FAILED)
 *     .withCreatedFrom(Instant.parse("2025-03-01T00:00:00Z"))
 *     .withTag("cliente", "c-1042")
 *     .withSize(50));
 * }</pre>
 * Times are half-open ranges: {@code from} included, {@code to} excluded. Results come newest first (by creation
 * time, then by id), a page at a time: {@link #page()} from 0, {@link #size()} from 1 to {@value #MAX_SIZE} (20
 * by default).
 */
public final class SkailQuery {

    /** The largest page. */
    public static final int MAX_SIZE = 200;

    /** The default page size. */
    public static final int DEFAULT_SIZE = 20;

    private static final SkailQuery ALL = new SkailQuery(null, Set.of(), null, null, null, null, List.of(), null, 0,
            DEFAULT_SIZE);

    private final @Nullable String function;

    private final Set<ExecutionStatus> statuses;

    private final @Nullable Instant createdFrom;

    private final @Nullable Instant createdTo;

    private final @Nullable Instant updatedFrom;

    private final @Nullable Instant updatedTo;

    private final List<Tag> tags;

    private final @Nullable String idContaining;

    private final int page;

    private final int size;

    private SkailQuery(@Nullable String function, Set<ExecutionStatus> statuses, @Nullable Instant createdFrom,
            @Nullable Instant createdTo, @Nullable Instant updatedFrom, @Nullable Instant updatedTo, List<Tag> tags,
            @Nullable String idContaining, int page, int size) {
        this.function = function;
        this.statuses = statuses;
        this.createdFrom = createdFrom;
        this.createdTo = createdTo;
        this.updatedFrom = updatedFrom;
        this.updatedTo = updatedTo;
        this.tags = tags;
        this.idContaining = idContaining;
        this.page = page;
        this.size = size;
    }

    /** The query that matches every execution: the first page, of {@value #DEFAULT_SIZE}. */
    public static SkailQuery all() {
        return ALL;
    }

    /**
     * Only executions of this function; {@code null} (or blank) for any.
     * @param function the function's name, e.g. {@code processarPedido}
     */
    public SkailQuery withFunction(@Nullable String function) {
        return new SkailQuery(blankToNull(function), this.statuses, this.createdFrom, this.createdTo, this.updatedFrom,
                this.updatedTo, this.tags, this.idContaining, this.page, this.size);
    }

    /** Only executions in one of these statuses; none for any. */
    public SkailQuery withStatuses(ExecutionStatus... statuses) {
        return withStatuses(Arrays.asList(statuses));
    }

    /** Only executions in one of these statuses; an empty collection for any. */
    public SkailQuery withStatuses(Collection<ExecutionStatus> statuses) {
        Set<ExecutionStatus> copy = statuses.isEmpty() ? Set.of()
                : Collections.unmodifiableSet(EnumSet.copyOf(statuses));
        return new SkailQuery(this.function, copy, this.createdFrom, this.createdTo, this.updatedFrom, this.updatedTo,
                this.tags, this.idContaining, this.page, this.size);
    }

    /** Only executions created at or after this instant; {@code null} for no lower bound. */
    public SkailQuery withCreatedFrom(@Nullable Instant from) {
        return new SkailQuery(this.function, this.statuses, from, this.createdTo, this.updatedFrom, this.updatedTo,
                this.tags, this.idContaining, this.page, this.size);
    }

    /** Only executions created before this instant (excluded); {@code null} for no upper bound. */
    public SkailQuery withCreatedTo(@Nullable Instant to) {
        return new SkailQuery(this.function, this.statuses, this.createdFrom, to, this.updatedFrom, this.updatedTo,
                this.tags, this.idContaining, this.page, this.size);
    }

    /**
     * Only executions that last changed at or after this instant; {@code null} for no lower bound. An ended
     * execution last changed when it ended.
     */
    public SkailQuery withUpdatedFrom(@Nullable Instant from) {
        return new SkailQuery(this.function, this.statuses, this.createdFrom, this.createdTo, from, this.updatedTo,
                this.tags, this.idContaining, this.page, this.size);
    }

    /** Only executions that last changed before this instant (excluded); {@code null} for no upper bound. */
    public SkailQuery withUpdatedTo(@Nullable Instant to) {
        return new SkailQuery(this.function, this.statuses, this.createdFrom, this.createdTo, this.updatedFrom, to,
                this.tags, this.idContaining, this.page, this.size);
    }

    /**
     * Only executions tagged {@code key=value} ({@link SkailTag}, {@link SkailContext#tag}), besides the tags given
     * before: all must match.
     * @throws IllegalArgumentException if the key or the value is not one a tag can have
     */
    public SkailQuery withTag(String key, String value) {
        Tags.require(key, value);
        Tag tag = new Tag(key, value);
        if (this.tags.contains(tag)) {
            return this;
        }
        List<Tag> tags = new ArrayList<>(this.tags);
        tags.add(tag);
        return new SkailQuery(this.function, this.statuses, this.createdFrom, this.createdTo, this.updatedFrom,
                this.updatedTo, List.copyOf(tags), this.idContaining, this.page, this.size);
    }

    /** Only executions whose id contains this text; {@code null} (or blank) for any. */
    public SkailQuery withIdContaining(@Nullable String part) {
        return new SkailQuery(this.function, this.statuses, this.createdFrom, this.createdTo, this.updatedFrom,
                this.updatedTo, this.tags, blankToNull(part), this.page, this.size);
    }

    /**
     * The page to answer, from 0.
     * @throws IllegalArgumentException if it is negative
     */
    public SkailQuery withPage(int page) {
        if (page < 0) {
            throw new IllegalArgumentException("page must not be negative (got " + page + ")");
        }
        return new SkailQuery(this.function, this.statuses, this.createdFrom, this.createdTo, this.updatedFrom,
                this.updatedTo, this.tags, this.idContaining, page, this.size);
    }

    /**
     * How many executions a page holds, from 1 to {@value #MAX_SIZE}.
     * @throws IllegalArgumentException if it is out of that range
     */
    public SkailQuery withSize(int size) {
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size must be from 1 to " + MAX_SIZE + " (got " + size + ")");
        }
        return new SkailQuery(this.function, this.statuses, this.createdFrom, this.createdTo, this.updatedFrom,
                this.updatedTo, this.tags, this.idContaining, this.page, size);
    }

    /** The function's name, or {@code null} for any. */
    public @Nullable String function() {
        return this.function;
    }

    /** The statuses to match; empty for any. */
    public Set<ExecutionStatus> statuses() {
        return this.statuses;
    }

    /** The lower bound (included) of the creation time, or {@code null}. */
    public @Nullable Instant createdFrom() {
        return this.createdFrom;
    }

    /** The upper bound (excluded) of the creation time, or {@code null}. */
    public @Nullable Instant createdTo() {
        return this.createdTo;
    }

    /** The lower bound (included) of the last change, or {@code null}. */
    public @Nullable Instant updatedFrom() {
        return this.updatedFrom;
    }

    /** The upper bound (excluded) of the last change, or {@code null}. */
    public @Nullable Instant updatedTo() {
        return this.updatedTo;
    }

    /** The tags that must all match, in the order given. */
    public List<Tag> tags() {
        return this.tags;
    }

    /** The text the id must contain, or {@code null}. */
    public @Nullable String idContaining() {
        return this.idContaining;
    }

    /** The page, from 0. */
    public int page() {
        return this.page;
    }

    /** The page's size. */
    public int size() {
        return this.size;
    }

    private static @Nullable String blankToNull(@Nullable String text) {
        return (text == null || text.isBlank()) ? null : text.strip();
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof SkailQuery query && Objects.equals(this.function, query.function)
                && this.statuses.equals(query.statuses) && Objects.equals(this.createdFrom, query.createdFrom)
                && Objects.equals(this.createdTo, query.createdTo) && Objects.equals(this.updatedFrom, query.updatedFrom)
                && Objects.equals(this.updatedTo, query.updatedTo) && this.tags.equals(query.tags)
                && Objects.equals(this.idContaining, query.idContaining) && this.page == query.page
                && this.size == query.size;
    }

    @Override
    public int hashCode() {
        return Objects.hash(this.function, this.statuses, this.createdFrom, this.createdTo, this.updatedFrom,
                this.updatedTo, this.tags, this.idContaining, this.page, this.size);
    }

    @Override
    public String toString() {
        return "SkailQuery[function=" + this.function + ", statuses=" + this.statuses + ", created=["
                + this.createdFrom + ", " + this.createdTo + "), updated=[" + this.updatedFrom + ", " + this.updatedTo
                + "), tags=" + this.tags + ", idContaining=" + this.idContaining + ", page=" + this.page + ", size="
                + this.size + "]";
    }

    /**
     * A tag a query matches.
     *
     * @param key the tag's key, e.g. {@code pedido}
     * @param value its value
     */
    public record Tag(String key, String value) {

        @Override
        public String toString() {
            return this.key + "=" + this.value;
        }
    }
}
