package dev.skail.platform;

/**
 * A tag of an execution as stored: a business key ({@code pedido}) and its value. An execution may have several values
 * for one key; each pair is kept once.
 *
 * @param key the key
 * @param value the value
 */
public record Tag(String key, String value) {
}
