package dev.skail.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.skail.SkailHistory;
import dev.skail.runtime.LocalReplay;
import dev.skail.runtime.SkailJson;

/**
 * Replays a production execution in a plain JUnit test, with breakpoints if you like: give it the history file
 * downloaded from the Monitor (or {@code GET /api/v1/executions/{id}/history}) and an instance of the class that
 * declares the function. No database, no worker, no effects: every recorded step returns its recorded outcome
 * without running, and the replay stops where the history ends. A change to the function's sequence of steps is
 * reported as {@link dev.skail.SkailNonDeterministicException} naming the step.
 *
 * <pre class="code">
 * SkailReplayer.fromFile(Path.of("skail-history-pedido-1.json"))
 *     .replay(new Pedidos(null, null, properties));
 * </pre>
 */
public final class SkailReplayer {

    private final SkailHistory history;

    private final SkailJson json;

    private SkailReplayer(SkailHistory history, SkailJson json) {
        this.history = history;
        this.json = json;
    }

    /** A replayer of an exported history file. */
    public static SkailReplayer fromFile(Path file) {
        try {
            return fromJson(Files.readString(file));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** A replayer of an exported history, as JSON. */
    public static SkailReplayer fromJson(String json) {
        SkailJson codec = SkailJson.createDefault();
        return new SkailReplayer(codec.mapper().readValue(json, SkailHistory.class), codec);
    }

    /** A replayer of an exported history, read and replayed with the application's own {@link SkailJson}. */
    public static SkailReplayer fromFile(Path file, SkailJson json) {
        try {
            return new SkailReplayer(json.mapper().readValue(Files.readString(file), SkailHistory.class), json);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** A replayer of a history read with {@link dev.skail.SkailClient#history(String)}. */
    public static SkailReplayer of(SkailHistory history) {
        return new SkailReplayer(history, SkailJson.createDefault());
    }

    /**
     * Replays the function on {@code bean}, an instance of its class built as you like: its dependencies may be
     * stubs or {@code null}, since commands do not run.
     * @throws dev.skail.SkailNonDeterministicException if the code reaches another step than the history has
     */
    public LocalReplay.Outcome replay(Object bean) {
        return new LocalReplay(this.history, this.json).replay(bean);
    }

    /** The history being replayed. */
    public SkailHistory history() {
        return this.history;
    }
}
