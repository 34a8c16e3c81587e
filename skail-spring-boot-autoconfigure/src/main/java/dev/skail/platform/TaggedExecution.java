package dev.skail.platform;

import java.util.List;

/**
 * An execution as stored, with its tags.
 *
 * @param execution the execution
 * @param tags its tags, in the order of their keys and values
 */
public record TaggedExecution(ExecutionRow execution, List<Tag> tags) {

    public TaggedExecution {
        tags = List.copyOf(tags);
    }
}
