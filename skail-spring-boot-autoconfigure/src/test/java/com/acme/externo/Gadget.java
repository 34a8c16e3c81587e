package com.acme.externo;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.concurrent.atomic.AtomicInteger;

/** A Serializable class with a side effect when read: it must never be read back. */
public class Gadget implements Serializable {

    private static final long serialVersionUID = 1L;

    /** How many times an instance has been read from a stream. */
    public static final AtomicInteger READS = new AtomicInteger();

    private final String command;

    public Gadget(String command) {
        this.command = command;
    }

    public String getCommand() {
        return this.command;
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        READS.incrementAndGet();
        in.defaultReadObject();
    }
}
