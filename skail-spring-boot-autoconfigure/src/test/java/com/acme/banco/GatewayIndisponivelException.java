package com.acme.banco;

/** An exception holding a connection, which is not Serializable: a type that cannot be rebuilt with its fields. */
public class GatewayIndisponivelException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Conexao conexao;

    public GatewayIndisponivelException(String message, Conexao conexao) {
        super(message);
        this.conexao = conexao;
    }

    public Conexao getConexao() {
        return this.conexao;
    }

    /** A live connection to the gateway. */
    public static class Conexao {

        private final String host;

        public Conexao(String host) {
            this.host = host;
        }

        public String getHost() {
            return this.host;
        }
    }
}
