package dev.skail.runtime;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ Effects.class, TestFlows.class, Estoque.class })
public class TestApplication {

}
