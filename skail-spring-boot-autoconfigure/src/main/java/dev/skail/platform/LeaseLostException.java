package dev.skail.platform;

/** A write was refused because the runner no longer holds the execution's lease. */
public class LeaseLostException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LeaseLostException(String taskId) {
        super("The lease on execution '" + taskId + "' was lost; another runner may hold it");
    }
}
