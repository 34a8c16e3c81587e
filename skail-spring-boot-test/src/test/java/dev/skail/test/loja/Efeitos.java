package dev.skail.test.loja;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.stereotype.Component;

/** What the commands did, per order: the effects a test counts. */
@Component
public class Efeitos {

    private final Map<UUID, List<String>> porPedido = new ConcurrentHashMap<>();

    void registrar(UUID pedidoId, String efeito) {
        this.porPedido.computeIfAbsent(pedidoId, (id) -> new CopyOnWriteArrayList<>()).add(efeito);
    }

    public List<String> de(UUID pedidoId) {
        return List.copyOf(this.porPedido.getOrDefault(pedidoId, List.of()));
    }
}
