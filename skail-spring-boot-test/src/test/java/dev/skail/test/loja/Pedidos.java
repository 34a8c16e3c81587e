package dev.skail.test.loja;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.UUID;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;

import org.springframework.stereotype.Service;

/** The order flow of skail's documentation: the card is charged 24 hours after the stock is reserved. */
@Service
public class Pedidos {

    private final Efeitos efeitos;

    public Pedidos(Efeitos efeitos) {
        this.efeitos = efeitos;
    }

    @SkailFunction
    public String processarPedido(UUID pedidoId, BigDecimal valor) {
        reservarEstoque(pedidoId);
        Skail.delay(Duration.ofHours(24));
        cobrarCartao(pedidoId, valor);
        confirmarPedido(pedidoId);
        return "CONFIRMADO";
    }

    @SkailCommand
    public String reservarEstoque(UUID pedidoId) {
        this.efeitos.registrar(pedidoId, "reservarEstoque");
        return "reserva-" + pedidoId;
    }

    @SkailCommand
    public String cobrarCartao(UUID pedidoId, BigDecimal valor) {
        this.efeitos.registrar(pedidoId, "cobrarCartao " + valor);
        return "cobranca-" + pedidoId;
    }

    @SkailCommand
    public void confirmarPedido(UUID pedidoId) {
        this.efeitos.registrar(pedidoId, "confirmarPedido");
    }
}
