package dev.skail.platform.jdbc;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * A process that writes orders to an H2 file one by one, each synced as the store syncs its commits, and prints the
 * id of each once its sync has returned (acknowledged): for tests that kill it.
 */
public final class H2FileWriter {

    private H2FileWriter() {
    }

    public static void main(String[] args) throws Exception {
        String url = H2Urls.durable(args[0]);
        try (Connection connection = DriverManager.getConnection(url)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS orders (id INT PRIMARY KEY, total NUMERIC(12, 2), "
                        + "body VARCHAR(4000))");
            }
            String body = "{\"itens\":[{\"sku\":\"A-1\",\"quantidade\":2,\"preco\":150.00}]}".repeat(40);
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO orders VALUES (?, ?, ?)")) {
                for (int id = 0; id < 1_000_000; id++) {
                    insert.setInt(1, id);
                    insert.setBigDecimal(2, new BigDecimal("150.00"));
                    insert.setString(3, body);
                    insert.executeUpdate();
                    H2GroupSync.sync(connection);
                    System.out.println(id);
                    System.out.flush();
                }
            }
        }
    }

}
