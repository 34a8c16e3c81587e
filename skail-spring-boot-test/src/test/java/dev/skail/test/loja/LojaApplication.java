package dev.skail.test.loja;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A tiny application using skail, the subject of the tests of {@code @SkailTest}. */
@SpringBootApplication
public class LojaApplication {

}
