package dev.skail.analyzer;

/**
 * A source of non-determinism found in a function.
 *
 * @param function the function it was found in (class and method)
 * @param where the method that contains the call (the function itself, or a method of its class it calls)
 * @param source the source file
 * @param line the source line, or -1 when the class has no line numbers
 * @param call the offending call, e.g. {@code java.lang.System.currentTimeMillis}
 * @param category what kind of source it is
 */
public record Finding(String function, String where, String source, int line, String call, Category category) {

    /** One line for logs and reports. */
    public String describe() {
        return this.where + " (" + this.source + ":" + this.line + ") calls " + this.call + ": it "
                + this.category.problem() + (this.where.equals(this.function) ? "" : " (reached from " + this.function
                        + ")");
    }
}
