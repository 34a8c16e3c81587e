package dev.skail.runtime;

import dev.skail.SkailCommand;
import dev.skail.SkailContext;

/** Another bean with a command. */
public class Estoque {

    private final Effects effects;

    public Estoque(Effects effects) {
        this.effects = effects;
    }

    @SkailCommand
    public int reservar(String sku, int quantidade) {
        this.effects.ran(SkailContext.current().taskId(), "reservar");
        return quantidade;
    }
}
