package dev.skail.analyzer;

/** A superclass whose helper a function of its subclass calls. */
public class AnalyzedBase {

    protected long stamp() {
        return System.currentTimeMillis();
    }
}
