package dev.skail;

import java.util.List;

/**
 * A page of executions that a {@link SkailQuery} matched, newest first.
 *
 * @param items the executions of this page, at most {@code size}
 * @param page the page's number, from 0
 * @param size the page's size as asked
 * @param hasMore whether a next page has executions
 */
public record SkailPage(List<SkailExecution> items, int page, int size, boolean hasMore) {

    public SkailPage {
        items = List.copyOf(items);
    }
}
