package dev.skail.runtime;

import java.io.IOException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import dev.skail.aot.AotTestConfiguration;
import dev.skail.aot.Encomendas;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.FileSystemGeneratedFiles;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Spring AOT: a context with skail's enhancer and a bean with functions and commands is AOT-processed as
 * {@code spring-boot:process-aot} does ({@link ApplicationContextAotGenerator}), the generated sources are compiled,
 * and the context is started from the generated code, as an AOT-processed application starts.
 */
class SpringAotTests {

    @TempDir
    Path generated;

    @Test
    void aotProcessingWritesTheSubclassAndTheGeneratedRegistrationCreatesIt() throws Exception {
        RuntimeHints hints = processAheadOfTime();

        Path subclassFile = dir(Kind.CLASS).resolve("dev/skail/aot/Encomendas$$SpringCGLIB$$0.class");
        assertThat(subclassFile).as("skail's subclass, written with the generated classes; written: %s", written())
            .exists();
        String registration = Files.readString(
                dir(Kind.SOURCE).resolve("dev/skail/aot/Encomendas__BeanDefinitions.java"));
        assertThat(registration).contains("beanDefinition.setBeanClass(SkailBeanEnhancer.enhance(Encomendas.class))")
            .contains("new Encomendas$$SpringCGLIB$$0(");

        try (URLClassLoader loader = compileGeneratedSources();
                GenericApplicationContext context = new GenericApplicationContext()) {
            @SuppressWarnings("unchecked")
            ApplicationContextInitializer<GenericApplicationContext> initializer =
                    (ApplicationContextInitializer<GenericApplicationContext>) loader
                        .loadClass("dev.skail.aot.AotTestApplication__ApplicationContextInitializer")
                        .getDeclaredConstructor()
                        .newInstance();
            initializer.initialize(context);
            context.refresh();

            Encomendas encomendas = context.getBean(Encomendas.class);
            assertThat(encomendas.getClass().getName()).isEqualTo("dev.skail.aot.Encomendas$$SpringCGLIB$$0");
            SkailBeanEnhancer enhancer = context.getBean(SkailBeanEnhancer.class);
            assertThat(enhancer.catalog().functions()).extracting(FunctionDefinition::name, FunctionDefinition::beanName)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("processarEncomenda", "dev.skail.aot.Encomendas"));
            assertThat(enhancer.isDeclaredException(Encomendas.FalhaDeCobranca.class)).isTrue();

            // outside an execution the methods run as plain Java, through the subclass
            UUID id = UUID.fromString("6a1f0c3e-8d2b-4f7a-9c5e-1b2d3e4f5a6b");
            String result = encomendas.processarEncomenda(new Encomendas.Encomenda(id, new BigDecimal("149.90"),
                    List.of(new Encomendas.Item("SKU-1", 2))));
            assertThat(result).isEqualTo("cobrado 149.90");
            assertThat(context.getBean(Encomendas.Livro.class).linhas()).containsExactly("reservar " + id,
                    "cobrar " + id + " 149.90");
        }

        Method function = Encomendas.class.getMethod("processarEncomenda", Encomendas.Encomenda.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(function)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Encomendas.Encomenda.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Encomendas.Item.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onJavaSerialization(Encomendas.FalhaDeCobranca.class, true))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onJavaSerialization(dev.skail.SkailRecordedException.class,
                true)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(dev.skail.SkailExecution.class)).accepts(hints);
        // the embedded store's H2 file system, which H2 creates by reflection
        assertThat(RuntimeHintsPredicates.reflection()
            .onConstructorInvocation(dev.skail.platform.jdbc.H2PreallocatedFilePath.class.getConstructor()))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/skail/web/monitor/index.html")).accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/skail/web/monitor/monitor.js")).accepts(hints);
    }

    @Test
    void aBeanCreatedByAnotherSupplierIsStillReported() {
        // only the registration skail generated (its subclass as the bean class) is accepted with a supplier
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.addBeanFactoryPostProcessor(new SkailBeanEnhancer(SkailJson.createDefault()));
            RootBeanDefinition definition = new RootBeanDefinition(Encomendas.class);
            definition.setInstanceSupplier(() -> new Encomendas(new Encomendas.Livro()));
            context.registerBeanDefinition("encomendas", definition);
            assertThatExceptionOfType(SkailDeclarationException.class).isThrownBy(context::refresh)
                .satisfies((ex) -> assertThat(ex.problems()).anySatisfy(
                        (problem) -> assertThat(problem.toString()).contains("@Bean factory method or a supplier")));
        }
    }

    /** Where the files of a kind are written, as the build's target/spring-aot/main/{sources,resources,classes}. */
    private Path dir(Kind kind) {
        return this.generated.resolve(kind.name().toLowerCase(java.util.Locale.ROOT));
    }

    private List<String> written() throws IOException {
        try (Stream<Path> files = Files.walk(this.generated)) {
            return files.filter(Files::isRegularFile).map((file) -> this.generated.relativize(file).toString()).toList();
        }
    }

    private RuntimeHints processAheadOfTime() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.register(AotTestConfiguration.class);
            DefaultGenerationContext generationContext = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get("dev.skail.aot", "AotTestApplication")),
                    new FileSystemGeneratedFiles(this::dir));
            new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
            generationContext.writeGeneratedContent();
            return generationContext.getRuntimeHints();
        }
    }

    /** Compiles the generated sources (as the build does after AOT processing) into a class loader of their own. */
    private URLClassLoader compileGeneratedSources() throws IOException {
        Path sources = dir(Kind.SOURCE);
        Path classes = this.generated.resolve("compiled");
        Files.createDirectories(classes);
        List<String> arguments = new ArrayList<>(List.of("-proc:none", "-nowarn", "-encoding", "UTF-8", "-d",
                classes.toString(), "-classpath",
                System.getProperty("java.class.path") + java.io.File.pathSeparator
                        + dir(Kind.CLASS)));
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter((file) -> file.toString().endsWith(".java")).forEach((file) -> arguments.add(file.toString()));
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        int status = compiler.run(null, null, errors, arguments.toArray(String[]::new));
        assertThat(status).as(errors.toString(StandardCharsets.UTF_8)).isZero();
        return new URLClassLoader(new URL[] { classes.toUri().toURL() }, getClass().getClassLoader());
    }
}
