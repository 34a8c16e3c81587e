package dev.skail;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a parameter of a {@link SkailFunction} a business key of its executions (a <em>tag</em>), so that they can be
 * found by it ({@link SkailQuery#withTag}, {@code GET /api/v1/executions?tag=pedido:...}, the Monitor):
 * <pre>{@code
 * @SkailFunction
 * public void processarPedido(@SkailTag("pedido") UUID pedidoId, BigDecimal valor) { ... }
 * }</pre>
 * The argument's text is stored with the execution in the transaction that creates it (a trigger from Java or HTTP, or
 * a child started by another function), so the execution is found by it at once.
 * <p>
 * The parameter must be of a simple type: {@code String}, {@code UUID}, a number (primitive, its wrapper,
 * {@code BigInteger}, {@code BigDecimal}), {@code boolean}, {@code char} or an enum; start-up fails otherwise. The text
 * is the value's {@code toString()}, an enum's {@code name()}, a {@code BigDecimal}'s plain digits without trailing
 * zeros ({@code 150.00} is {@code 150}). A {@code null} or blank argument adds no tag; a text longer than
 * {@value dev.skail.runtime.Tags#MAX_VALUE_LENGTH} characters refuses the trigger. Tags found while the function runs
 * are added with {@link SkailContext#tag(String, Object)}.
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
public @interface SkailTag {

    /**
     * The tag's key, e.g. {@code pedido}: 1 to {@value dev.skail.runtime.Tags#MAX_KEY_LENGTH} letters, digits, and
     * {@code . _ -}.
     */
    String value();
}
