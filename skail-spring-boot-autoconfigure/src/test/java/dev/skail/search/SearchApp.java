package dev.skail.search;

import dev.skail.test.SkailTestConfiguration;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** The application of the search tests, on virtual time. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ PedidosBuscaveis.class, SkailTestConfiguration.class })
public class SearchApp {

}
