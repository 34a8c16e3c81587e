package dev.skail.aot;

import dev.skail.runtime.SkailBeanEnhancer;
import dev.skail.runtime.SkailJson;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** The context the AOT tests process: skail's enhancer (as its auto-configuration declares it) and the order flow. */
@Configuration(proxyBeanMethods = false)
@Import(Encomendas.class)
public class AotTestConfiguration {

    @Bean
    public static SkailBeanEnhancer skailBeanEnhancer() {
        return new SkailBeanEnhancer(SkailJson.createDefault());
    }

    @Bean
    public Encomendas.Livro livro() {
        return new Encomendas.Livro();
    }
}
