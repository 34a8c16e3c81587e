package dev.skail.runtime;

import dev.skail.SkailContext;
import org.jspecify.annotations.Nullable;

/** A delivery as function and command code sees it through {@link SkailContext#current()}. */
final class DeliveryView implements SkailContext {

    private final Delivery delivery;

    DeliveryView(Delivery delivery) {
        this.delivery = delivery;
    }

    @Override
    public String taskId() {
        return this.delivery.taskId();
    }

    @Override
    public String workload() {
        return this.delivery.execution.workload();
    }

    @Override
    public String version() {
        return this.delivery.execution.version();
    }

    @Override
    public String functionName() {
        return this.delivery.functionName();
    }

    @Override
    public int attempt() {
        Delivery.CommandScope scope = this.delivery.frame().command;
        return (scope != null) ? scope.attempt() : this.delivery.execution.attempt();
    }

    @Override
    public boolean isReplaying() {
        // the function's code is replaying up to where an earlier delivery got: a step it recorded or attempted
        return this.delivery.isReplaying();
    }

    @Override
    public @Nullable String commandName() {
        Delivery.CommandScope scope = this.delivery.frame().command;
        return (scope != null) ? scope.step().name() : null;
    }

    @Override
    public String idempotencyKey() {
        Delivery.CommandScope scope = this.delivery.frame().command;
        if (scope == null) {
            throw new IllegalStateException("An idempotency key belongs to a command step: call "
                    + "SkailContext.current().idempotencyKey() inside a @SkailCommand");
        }
        return scope.key();
    }

    @Override
    public void tag(String key, Object value) {
        this.delivery.tag(key, value);
    }
}
