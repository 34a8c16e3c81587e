package dev.skail.sample;

/**
 * A charge as the payment gateway knows it.
 *
 * @param id the gateway's id
 * @param externalReference our reference of the charge: the idempotency key of the step that created it
 * @param status {@code APPROVED} or {@code REFUSED}
 */
public record Cobranca(String id, String externalReference, String status) {
}
