package dev.skail.benchmarks.startup;

import dev.skail.SkailCommand;
import dev.skail.SkailFunction;

/**
 * The application's one durable function and its command. Without the starter the annotations are absent at run time
 * and this is a plain bean; with it, the starter reads, checks (determinism analyzer) and enhances it at start-up.
 */
public class Orders {

    @SkailFunction
    public String placeOrder(String orderId) {
        return reserveStock(orderId);
    }

    @SkailCommand
    public String reserveStock(String orderId) {
        return "reserved " + orderId;
    }
}
