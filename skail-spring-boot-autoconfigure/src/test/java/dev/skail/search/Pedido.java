package dev.skail.search;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * An order as the search tests' functions take it.
 *
 * @param id its id
 * @param cliente the customer's code
 * @param valor the total, with its scale
 * @param criadoEm when the customer placed it, in the customer's offset
 * @param itens its lines
 */
public record Pedido(UUID id, String cliente, BigDecimal valor, OffsetDateTime criadoEm, List<Item> itens) {

    /**
     * A line of an order.
     *
     * @param sku the product
     * @param quantidade how many
     * @param preco the unit price
     */
    public record Item(String sku, int quantidade, BigDecimal preco) {
    }
}
