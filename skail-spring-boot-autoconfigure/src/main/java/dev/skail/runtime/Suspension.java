package dev.skail.runtime;

/**
 * Unwinds a function when the runtime ends a delivery early: a command failed and will be retried, the store
 * could not record, the execution diverged. It is an {@link Error} so that {@code catch (Exception e)} in user
 * code does not swallow it; should user code catch it anyway, the runtime still knows, because the execution
 * context remembers that it asked to stop.
 */
final class Suspension extends Error {

    private static final long serialVersionUID = 1L;

    Suspension(String reason) {
        super(reason, null, false, false);
    }
}
