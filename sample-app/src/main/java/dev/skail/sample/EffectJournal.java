package dev.skail.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;

import org.springframework.stereotype.Component;

/**
 * Appends one line per real effect of the fake services ({@code taskId effect}) to {@code sample.journal}, when
 * set. Each line is written before the call returns, so it survives the process being killed.
 */
@Component
public class EffectJournal {

    private final SampleProperties properties;

    public EffectJournal(SampleProperties properties) {
        this.properties = properties;
    }

    public synchronized void record(String taskId, String effect) {
        if (this.properties.journal() == null) {
            return;
        }
        try {
            Files.writeString(this.properties.journal(), taskId + " " + effect + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
